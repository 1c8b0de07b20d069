import PushdiagCore

public struct RouteTextRenderer {
    public init() {}

    public func render(_ s: RouteSetReport) -> String {
        var t = TextTable([
            ("DESTINATION", .left), ("ADDRESS", .left), ("VIA", .left), ("GATEWAY STATE", .left), ("DEV", .left), ("VLAN", .left),
            ("SOURCE", .left), ("MTU", .right),
        ])
        for r in s.routes {
            t.add([
                r.destination, r.address?.description ?? "-", r.gateway?.description ?? (r.routeType == nil ? "-" : "on-link"), r.gatewayState?.rawValue ?? "-",
                r.devices.isEmpty ? (r.interface ?? "-") : r.devices.joined(separator: " → "),
                r.vlanId.map(String.init) ?? (r.interface == nil ? "-" : "untagged"),
                r.source?.description ?? "-", r.mtu.map(String.init) ?? "-",
            ])
        }
        var out = t.render()
        for r in s.routes { if let e = r.error { out += "  \(r.destination): \(e)\n" } }
        for r in s.routes {
            if let how = r.gatewayResolution, let gw = r.gateway { out += "  \(r.destination): whether gateway \(gw) answers was not known; \(how)\n" }
        }
        return out + "\n" + CaptureTextRenderer().renderFindings(s.routes.flatMap(\.findings), status: s.status)
    }
}
