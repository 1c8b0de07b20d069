import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// How a cycle is started: by the machine's connection manager (found by itself with `auto`, or
/// named), the interface set down and up (CAP_NET_ADMIN), or not at all (passive: a rejoin that
/// happens by itself).
public enum JoinKick: String, Sendable, CaseIterable {
    case auto
    case wpaSupplicant = "wpa_supplicant"
    case networkManager = "networkmanager"
    case iwd, link, passive
}

/// Whatever drops the association and brings it back for one cycle. pushdiag never changes the
/// manager's configuration: it asks for a disconnect and for the connection it had.
protocol Rejoiner: AnyObject {
    /// The report's `mode`: which manager the cycles went through.
    var mode: String { get }
    /// What the cycle's start says was asked (the restore).
    var restoreLabel: String { get }
    func drop() throws
    func restore() throws
    /// Once the cycle has ended: what the manager answered to the restore, if it failed (iwd's
    /// Connect replies only when connected, so its answer comes after the steps). `wait` false
    /// (the run is being stopped): only an answer already there is read.
    func restoreFailure(wait: Bool) -> String?
}

extension Rejoiner {
    func restoreFailure(wait: Bool) -> String? { nil }
}

/// An error of finding or asking a connection manager: one line naming it, exit 3.
public struct RejoinError: Error, CustomStringConvertible {
    public let description: String
    /// The manager runs but does not manage the interface: `auto` may ask the next one.
    public var notManaged = false
    init(_ d: String, notManaged: Bool = false) {
        description = d
        self.notManaged = notManaged
    }
}

enum Rejoiners {
    /// The rejoiner `settings.kick` names for the interface; `auto` asks NetworkManager, then iwd (over
    /// the system bus, each only if its name has an owner: a call would start one through D-Bus
    /// activation), then wpa_supplicant's control interface. NetworkManager comes first because
    /// it usually drives a wpa_supplicant of its own, which must not be asked behind its back.
    /// nil for passive.
    static func find(_ settings: JoinSettings, ifindex: UInt32) throws -> Rejoiner? {
        let interface = settings.interface
        let controlDirectory = settings.controlDirectory
        // Not Int32.max: libdbus takes that as DBUS_TIMEOUT_INFINITE.
        let connectTimeoutMs = Int32(min(settings.cycleTimeoutSeconds * 1000, 2e9))
        switch settings.kick {
        case .passive: return nil
        case .link: return LinkRejoiner(ifindex: ifindex)
        case .wpaSupplicant: return try WPASupplicantRejoiner(interface: interface, directory: controlDirectory)
        case .networkManager:
            return try NetworkManagerRejoiner(bus: bus(for: "NetworkManager", NetworkManagerRejoiner.service), interface: interface)
        case .iwd: return try IWDRejoiner(bus: bus(for: "iwd", IWDRejoiner.service), interface: interface, connectTimeoutMs: connectTimeoutMs)
        case .auto:
            var tried: [String] = []
            if let bus = try? SystemBus() {
                for (name, make) in [
                    (NetworkManagerRejoiner.service, { try NetworkManagerRejoiner(bus: bus, interface: interface) as Rejoiner }),
                    (IWDRejoiner.service, { try IWDRejoiner(bus: bus, interface: interface, connectTimeoutMs: connectTimeoutMs) as Rejoiner }),
                ] {
                    guard bus.hasOwner(name) else {
                        tried.append("\(name) has no owner on the system bus")
                        continue
                    }
                    // A manager that has the interface but cannot rejoin it is the answer (its own
                    // wpa_supplicant must not be asked behind its back); one without it is not.
                    do { return try make() } catch let e as RejoinError where e.notManaged { tried.append("\(e)") }
                }
            } else {
                tried.append("no system bus (NetworkManager and iwd not asked)")
            }
            do { return try WPASupplicantRejoiner(interface: interface, directory: controlDirectory) } catch { tried.append("\(error)") }
            throw RejoinError(
                "no connection manager answered for \(interface): \(tried.joined(separator: "; ")); --kick link sets the interface down and up instead")
        }
    }

    /// The system bus, with `service` on it (asked first: a call would start it by D-Bus
    /// activation, where it is not running).
    static func bus(for manager: String, _ service: String) throws -> SystemBus {
        let bus: SystemBus
        do { bus = try SystemBus() } catch { throw RejoinError("\(manager): \(error)") }
        guard bus.hasOwner(service) else { throw RejoinError("\(manager) is not running: \(service) has no owner on the system bus") }
        return bus
    }
}

/// wpa_supplicant's control interface: DISCONNECT, then RECONNECT.
final class WPASupplicantRejoiner: Rejoiner {
    let control: WPAControl
    init(interface: String, directory: String) throws { control = try WPAControl(interface: interface, directory: directory) }
    var mode: String { "wpa_supplicant" }
    var restoreLabel: String { "wpa_supplicant RECONNECT" }
    func drop() throws { try control.expectOK("DISCONNECT") }
    func restore() throws { try control.expectOK("RECONNECT") }
}

/// The interface set down and up over rtnetlink (CAP_NET_ADMIN): the manager rejoins by itself.
final class LinkRejoiner: Rejoiner {
    let ifindex: UInt32
    init(ifindex: UInt32) { self.ifindex = ifindex }
    var mode: String { "link" }
    var restoreLabel: String { "link set up" }
    func drop() throws { try set(up: false) }
    func restore() throws { try set(up: true) }

    func set(up: Bool) throws {
        let t = try LiveNetlink(protocol: Netlink.protocolRoute)
        var b = NetlinkMessageBuilder(type: RTNetlink.newLink, flags: Netlink.flagRequest | Netlink.flagAck, sequence: 1)
        b.raw([0, 0, 0, 0] + RTNetlink.le32(ifindex) + RTNetlink.le32(up ? 1 : 0) + RTNetlink.le32(1))
        _ = try t.exchange(b.finish(), dump: false)
    }
}

/// NetworkManager over D-Bus: the device's Disconnect, then ActivateConnection of the
/// connection that was active on it (NetworkManager's own autoconnect is not waited for: after a
/// Disconnect it does not reconnect the device by itself).
final class NetworkManagerRejoiner: Rejoiner {
    static let service = "org.freedesktop.NetworkManager"
    static let root = "/org/freedesktop/NetworkManager"
    let bus: SystemBus
    let device: String
    let connection: String
    let id: String

    init(bus: SystemBus, interface: String) throws {
        self.bus = bus
        do {
            let found: String?
            do { found = try bus.call(Self.service, Self.root, Self.service, "GetDeviceByIpIface", [.string(interface)]).first?.text } catch {
                guard case .failed(_, "org.freedesktop.NetworkManager.UnknownDevice", _) = error else { throw error }
                throw RejoinError("NetworkManager: it has no device \(interface)", notManaged: true)
            }
            guard let d = found else { throw RejoinError("NetworkManager: no device path for \(interface)") }
            guard try bus.property(Self.service, d, Self.service + ".Device", "Managed") != .bool(false) else {
                throw RejoinError("NetworkManager: \(interface) is not managed by it", notManaged: true)
            }
            device = d
            guard let active = try bus.property(Self.service, d, Self.service + ".Device", "ActiveConnection")?.text, active != "/" else {
                throw RejoinError("NetworkManager: \(interface) has no active connection to bring back")
            }
            guard let c = try bus.property(Self.service, active, Self.service + ".Connection.Active", "Connection")?.text else {
                throw RejoinError("NetworkManager: the active connection \(active) names no connection")
            }
            connection = c
            id = (try? bus.property(Self.service, active, Self.service + ".Connection.Active", "Id")?.text) ?? c
        } catch let e as SystemBusError {
            throw RejoinError("NetworkManager: \(e)")
        }
    }

    var mode: String { "networkmanager" }
    var restoreLabel: String { "NetworkManager ActivateConnection \(id)" }
    func drop() throws {
        do { _ = try bus.call(Self.service, device, Self.service + ".Device", "Disconnect") } catch { throw RejoinError("NetworkManager: \(error)") }
    }
    func restore() throws {
        do {
            _ = try bus.call(Self.service, Self.root, Self.service, "ActivateConnection", [.objectPath(connection), .objectPath(device), .objectPath("/")])
        } catch { throw RejoinError("NetworkManager: \(error)") }
    }
}

/// iwd over D-Bus: the station's Disconnect, then Connect on the network it was connected to.
/// Connect replies only once the station is connected (or has failed): it is sent, and its
/// reply read after the cycle, so that the steps are watched as they happen.
final class IWDRejoiner: Rejoiner {
    static let service = "net.connman.iwd"
    let bus: SystemBus
    let station: String
    let network: String
    let name: String
    let connectTimeoutMs: Int32
    var pending: SystemBus.Pending?

    init(bus: SystemBus, interface: String, connectTimeoutMs: Int32) throws {
        self.bus = bus
        self.connectTimeoutMs = connectTimeoutMs
        do {
            // The device whose Name is the interface, with a Station (iwd's paths are its own:
            // /net/connman/iwd/PHY/IFINDEX in iwd 2, but read, not assumed).
            let objects = try bus.call(Self.service, "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects").first
            guard case .dictionary(let all) = objects?.unwrapped else { throw RejoinError("iwd: GetManagedObjects answered no objects") }
            guard
                let (path, _) = all.first(where: { _, ifaces in
                    ifaces["net.connman.iwd.Device"]?["Name"]?.text == interface && ifaces["net.connman.iwd.Station"] != nil
                })
            else { throw RejoinError("iwd: no station \(interface) (is it in station mode, and managed by this iwd?)", notManaged: true) }
            station = path
            guard let n = all[path]?["net.connman.iwd.Station"]?["ConnectedNetwork"]?.text else {
                throw RejoinError("iwd: \(interface) is not connected: there is no network to bring back")
            }
            network = n
            name = all[n]?["net.connman.iwd.Network"]?["Name"]?.text ?? n
        } catch let e as SystemBusError {
            throw RejoinError("iwd: \(e)")
        }
    }

    var mode: String { "iwd" }
    var restoreLabel: String { "iwd Network.Connect \(name)" }
    func drop() throws {
        do { _ = try bus.call(Self.service, station, "net.connman.iwd.Station", "Disconnect") } catch { throw RejoinError("iwd: \(error)") }
    }
    func restore() throws {
        do { pending = try bus.send(Self.service, network, "net.connman.iwd.Network", "Connect", timeoutMs: connectTimeoutMs) } catch {
            throw RejoinError("iwd: \(error)")
        }
    }
    func restoreFailure(wait: Bool) -> String? {
        guard let p = pending, wait || p.isCompleted else { return nil }
        pending = nil
        do {
            _ = try p.reply()
            return nil
        } catch { return "iwd: \(error)" }
    }
}
