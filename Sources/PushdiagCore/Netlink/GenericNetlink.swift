/// The generic netlink controller (`<linux/genetlink.h>`): resolving a family such as "nl80211"
/// to its message type and multicast groups.
public enum GenericNetlink {
    /// `GENL_ID_CTRL`, `CTRL_CMD_GETFAMILY`, `CTRL_CMD_NEWFAMILY`.
    public static let controlID: UInt16 = 16, getFamily: UInt8 = 3, newFamily: UInt8 = 1
    /// `CTRL_ATTR_FAMILY_ID`, `CTRL_ATTR_FAMILY_NAME`, `CTRL_ATTR_MCAST_GROUPS`,
    /// `CTRL_ATTR_MCAST_GRP_NAME`, `CTRL_ATTR_MCAST_GRP_ID`.
    public static let attrFamilyID: UInt16 = 1, attrFamilyName: UInt16 = 2, attrMulticastGroups: UInt16 = 7
    public static let attrGroupName: UInt16 = 1, attrGroupID: UInt16 = 2

    public struct Family: Equatable, Sendable {
        public var id: UInt16
        public var name: String
        public var groups: [String: UInt32]

        public init(id: UInt16, name: String, groups: [String: UInt32]) {
            self.id = id
            self.name = name
            self.groups = groups
        }
    }

    public static func getFamilyRequest(name: String, sequence: UInt32) -> [UInt8] {
        var b = NetlinkMessageBuilder(type: controlID, flags: Netlink.flagRequest | Netlink.flagAck, sequence: sequence)
        b.genl(command: getFamily, version: 1)
        b.attribute(attrFamilyName, string: name)
        return b.finish()
    }

    /// A CTRL_CMD_NEWFAMILY message → the family, or nil when it is not one.
    public static func family(_ m: Netlink.Message) -> Family? {
        guard m.type == controlID, m.genlCommand == newFamily else { return nil }
        var f = Family(id: 0, name: "", groups: [:])
        Netlink.forEachAttribute(m.genlAttributes) { type, v in
            switch type {
            case attrFamilyID: f.id = v.nlU16 ?? 0
            case attrFamilyName: f.name = v.nlString
            case attrMulticastGroups:
                Netlink.forEachAttribute(v) { _, group in
                    var name = ""
                    var id: UInt32?
                    Netlink.forEachAttribute(group) { t, gv in
                        if t == attrGroupName { name = gv.nlString }
                        if t == attrGroupID { id = gv.nlU32 }
                    }
                    if let id, !name.isEmpty { f.groups[name] = id }
                }
            default: break
            }
        }
        return f.id == 0 ? nil : f
    }
}
