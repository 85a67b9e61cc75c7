//! The client's IP address, believed only as far as the deployer said.
//!
//! The binding passes the connection's peer address (`remoteAddress`). If
//! that peer is a trusted proxy (`trustedProxies`, a list of CIDR ranges;
//! empty by default), the one header those proxies write the client in
//! (`forwardedHeader`: `X-Forwarded-For` or the standard `Forwarded`) is
//! read from the right: each address that is itself a trusted proxy is
//! skipped, and the first one that is not is the client. The other header
//! is never read: a proxy passes through whatever the client wrote in a
//! header it does not write itself, so reading it would let the client name
//! its own address. Without `forwardedHeader`, a request that carries one
//! of the two is read by it, and one that carries both is counted under the
//! proxy's own address: the client wrote one of them, and which is not
//! known (set `forwardedHeader` to count such clients apart). Anything a client writes in either
//! header is ignored when the peer is not trusted, so a spoofed
//! `X-Forwarded-For` changes nothing.

use std::net::IpAddr;

use ipnet::IpNet;
use serde_json::Value;

use crate::error::ConfigError;
use crate::http::AuthRequest;

/// `forwardedHeader`: which header the trusted proxies write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ForwardedHeader {
    /// Not configured: the one of the two a request carries; with both,
    /// neither (the proxy's own address counts).
    #[default]
    Unset,
    /// `X-Forwarded-For: client, proxy1, proxy2`.
    XForwardedFor,
    /// RFC 7239 `Forwarded: for=client;proto=https, for=proxy1`.
    Forwarded,
}

impl ForwardedHeader {
    /// `forwardedHeader`: absent (see [`ForwardedHeader::Unset`]),
    /// `"x-forwarded-for"` or `"forwarded"` (any case).
    pub fn parse(value: Option<&Value>) -> Result<ForwardedHeader, ConfigError> {
        match value {
            None | Some(Value::Null) => Ok(ForwardedHeader::default()),
            Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("x-forwarded-for") => {
                Ok(ForwardedHeader::XForwardedFor)
            }
            Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("forwarded") => Ok(ForwardedHeader::Forwarded),
            Some(other) => Err(ConfigError::new(
                "forwardedHeader",
                format!(
                    "{other} is not a header libauth reads; use \"x-forwarded-for\" or \"forwarded\" \
                     (the one your trusted proxies write)"
                ),
            )),
        }
    }

    /// The header's name; `None` when not configured.
    pub fn name(self) -> Option<&'static str> {
        match self {
            ForwardedHeader::Unset => None,
            ForwardedHeader::XForwardedFor => Some("x-forwarded-for"),
            ForwardedHeader::Forwarded => Some("forwarded"),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    nets: Vec<IpNet>,
    header: ForwardedHeader,
}

impl TrustedProxies {
    pub fn none() -> TrustedProxies {
        TrustedProxies::default()
    }

    /// `trustedProxies`: CIDR ranges (`10.0.0.0/8`) or single addresses.
    pub fn parse(list: &[String]) -> Result<TrustedProxies, ConfigError> {
        list.iter()
            .enumerate()
            .map(|(i, entry)| {
                let entry = entry.trim();
                entry.parse::<IpNet>().or_else(|_| entry.parse::<IpAddr>().map(IpNet::from)).map_err(|_| {
                    ConfigError::new(
                        format!("trustedProxies[{i}]"),
                        format!("{entry:?} is not an IP address or CIDR range"),
                    )
                })
            })
            .collect::<Result<_, _>>()
            .map(|nets| TrustedProxies { nets, header: ForwardedHeader::default() })
    }

    /// The header the proxies write (`forwardedHeader`).
    pub fn with_header(self, header: ForwardedHeader) -> TrustedProxies {
        TrustedProxies { header, ..self }
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.nets.iter().any(|net| net.contains(&ip))
    }

    /// The client's address, or `None` when the binding gave no peer
    /// address (or one that does not parse).
    pub fn client_ip(&self, req: &AuthRequest) -> Option<IpAddr> {
        let peer = parse_ip(req.remote_address.as_deref()?)?;
        if !self.trusts(peer) {
            return Some(peer);
        }
        let has = |name: &str| req.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name));
        let header = match self.header {
            ForwardedHeader::Unset => match (has("x-forwarded-for"), has("forwarded")) {
                (true, false) => ForwardedHeader::XForwardedFor,
                (false, true) => ForwardedHeader::Forwarded,
                // Both (the client wrote one) or neither: the proxy's own.
                _ => return Some(peer),
            },
            configured => configured,
        };
        // Hops, nearest last, from that header only (every line of it, in
        // order).
        let name = header.name().unwrap_or_default();
        let values = req.headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());
        let hops: Vec<IpAddr> = match header {
            ForwardedHeader::Unset => Vec::new(),
            ForwardedHeader::XForwardedFor => values.flat_map(|v| v.split(',')).filter_map(parse_ip).collect(),
            ForwardedHeader::Forwarded => values
                .flat_map(|v| v.split([',', ';']))
                .filter_map(|pair| {
                    let (key, v) = pair.split_once('=')?;
                    key.trim().eq_ignore_ascii_case("for").then(|| parse_ip(v)).flatten()
                })
                .collect(),
        };
        Some(hops.iter().rev().copied().find(|hop| !self.trusts(*hop)).or(hops.first().copied()).unwrap_or(peer))
    }
}

/// An address as headers and sockets write it: `1.2.3.4`, `1.2.3.4:5678`,
/// `::1`, `[::1]:443`, `"[2001:db8::1]"`, `::ffff:1.2.3.4`.
fn parse_ip(raw: &str) -> Option<IpAddr> {
    let raw = raw.trim().trim_matches('"');
    let ip = if let Some(rest) = raw.strip_prefix('[') {
        rest.split(']').next()?.parse().ok()?
    } else if let Ok(ip) = raw.parse::<IpAddr>() {
        ip
    } else {
        let (host, port) = raw.rsplit_once(':')?;
        port.parse::<u16>().ok()?;
        host.parse::<std::net::Ipv4Addr>().ok()?.into()
    };
    Some(match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    })
}

/// The address a limit counts: an IPv4 address as is, an IPv6 one by its
/// /64 (one subscriber's block: counting single addresses would let a client
/// rotate through 2^64 of them).
pub fn bucket(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn req(peer: &str, headers: &[(&str, &str)]) -> AuthRequest {
        let mut r = AuthRequest { remote_address: Some(peer.into()), ..AuthRequest::get("http://x/") };
        for (k, v) in headers {
            r = r.with_header(k, *v);
        }
        r
    }

    #[test]
    fn forwarded_headers_count_only_behind_a_trusted_proxy() {
        let none = TrustedProxies::none();
        let proxy = TrustedProxies::parse(&["10.0.0.0/8".into(), "::1".into()]).unwrap();
        let spoofed = [("x-forwarded-for", "6.6.6.6")];
        assert_eq!(none.client_ip(&req("1.2.3.4", &spoofed)).unwrap().to_string(), "1.2.3.4");
        assert_eq!(proxy.client_ip(&req("1.2.3.4", &spoofed)).unwrap().to_string(), "1.2.3.4", "peer not a proxy");
        let chain = [("x-forwarded-for", "6.6.6.6, 7.7.7.7, 10.0.0.2")];
        assert_eq!(
            proxy.client_ip(&req("10.0.0.1", &chain)).unwrap().to_string(),
            "7.7.7.7",
            "rightmost untrusted hop"
        );
        let fwd = [("forwarded", "for=\"[2001:db8::1]:4711\";proto=https, for=10.0.0.9")];
        let rfc7239 = proxy.clone().with_header(ForwardedHeader::Forwarded);
        assert_eq!(rfc7239.client_ip(&req("::1", &fwd)).unwrap().to_string(), "2001:db8::1");
        let xff_only = proxy.clone().with_header(ForwardedHeader::XForwardedFor);
        assert_eq!(xff_only.client_ip(&req("::1", &fwd)).unwrap().to_string(), "::1", "Forwarded is not configured");
        // Not configured: the one header a request carries is read ...
        assert_eq!(proxy.client_ip(&req("::1", &fwd)).unwrap().to_string(), "2001:db8::1");
        // ... and with both, neither.
        let both = [("x-forwarded-for", "6.6.6.6"), ("forwarded", "for=7.7.7.7")];
        assert_eq!(proxy.client_ip(&req("10.0.0.1", &both)).unwrap().to_string(), "10.0.0.1");
        assert_eq!(proxy.client_ip(&req("10.0.0.1", &[])).unwrap().to_string(), "10.0.0.1");
        assert_eq!(none.client_ip(&req("::ffff:1.2.3.4", &[])).unwrap().to_string(), "1.2.3.4");
        assert_eq!(none.client_ip(&req("[::1]:5000", &[])).unwrap().to_string(), "::1");
        assert!(none.client_ip(&AuthRequest::get("http://x/")).is_none());
        assert_eq!(TrustedProxies::parse(&["nope".into()]).unwrap_err().option, "trustedProxies[0]");
    }

    #[test]
    fn forwarded_header_option_is_checked() {
        use serde_json::json;
        assert_eq!(ForwardedHeader::parse(None).unwrap(), ForwardedHeader::Unset);
        assert_eq!(ForwardedHeader::parse(Some(&json!("Forwarded"))).unwrap(), ForwardedHeader::Forwarded);
        assert_eq!(ForwardedHeader::parse(Some(&json!("x-forwarded-for"))).unwrap(), ForwardedHeader::XForwardedFor);
        for bad in [json!("x-real-ip"), json!(""), json!(true), json!(["forwarded"])] {
            assert_eq!(ForwardedHeader::parse(Some(&bad)).unwrap_err().option, "forwardedHeader", "{bad}");
        }
    }

    fn ip() -> impl Strategy<Value = IpAddr> {
        prop_oneof![any::<[u8; 4]>().prop_map(IpAddr::from), any::<[u16; 8]>().prop_map(IpAddr::from)]
    }

    /// What a client may write in a header: addresses, lists, `for=` pairs,
    /// ports, brackets, quotes and junk.
    fn client_header() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            ip().prop_map(|ip| ip.to_string()),
            ip().prop_map(|ip| format!("for={ip}")),
            ip().prop_map(|ip| format!("for=\"[{ip}]:443\"")),
            "[ -~]{0,20}",
        ];
        proptest::collection::vec(piece, 0..6).prop_map(|p| p.join(", "))
    }

    fn untrusted(ip: IpAddr) -> IpAddr {
        // Outside 10.0.0.0/8 and ::1, and as the parser normalises it.
        match ip {
            IpAddr::V4(v4) if v4.octets()[0] == 10 => IpAddr::from([11, 0, 0, 1]),
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
            other => other,
        }
    }

    proptest! {
        /// R3: behind a proxy that writes `Forwarded`, nothing the client
        /// puts in `X-Forwarded-For` changes its address, and the reverse.
        #[test]
        fn the_header_the_proxy_does_not_write_never_names_the_client(
            client in ip(), junk in client_header(), junk_first in any::<bool>()
        ) {
            let client = untrusted(client);
            let nets = TrustedProxies::parse(&["10.0.0.0/8".into()]).unwrap();
            let shown = match client { IpAddr::V6(v6) => format!("\"[{v6}]\""), v4 => v4.to_string() };
            // The proxy writes Forwarded; the client's X-Forwarded-For passes through.
            let rfc7239 = nets.clone().with_header(ForwardedHeader::Forwarded);
            let fwd = format!("for={shown};proto=https");
            let mut headers = vec![("x-forwarded-for", junk.as_str()), ("forwarded", fwd.as_str())];
            if junk_first { headers.reverse(); }
            prop_assert_eq!(rfc7239.client_ip(&req("10.0.0.1", &headers)), Some(client));
            // The proxy appends to X-Forwarded-For; the client's Forwarded
            // and the client's own X-Forwarded-For prefix pass through.
            let xff = format!("{junk}, {client}");
            let headers = [("forwarded", junk.as_str()), ("x-forwarded-for", xff.as_str())];
            let appends = nets.clone().with_header(ForwardedHeader::XForwardedFor);
            prop_assert_eq!(appends.client_ip(&req("10.0.0.1", &headers)), Some(client));
        }

        /// Without `forwardedHeader`, a client that adds the header its
        /// proxy does not write gains nothing: with both headers the
        /// proxy's own address counts, whatever either says; with only the
        /// proxy's, the client is found.
        #[test]
        fn unconfigured_a_second_header_names_nobody(
            client in ip(), junk in client_header(), proxy_writes_forwarded in any::<bool>()
        ) {
            let client = untrusted(client);
            let nets = TrustedProxies::parse(&["10.0.0.0/8".into()]).unwrap();
            let shown = match client { IpAddr::V6(v6) => format!("\"[{v6}]\""), v4 => v4.to_string() };
            let (written, passed) = if proxy_writes_forwarded {
                (("forwarded", format!("for={shown}")), ("x-forwarded-for", junk.clone()))
            } else {
                (("x-forwarded-for", format!("{junk}, {client}")), ("forwarded", junk.clone()))
            };
            let both = [(written.0, written.1.as_str()), (passed.0, passed.1.as_str())];
            prop_assert_eq!(nets.client_ip(&req("10.0.0.1", &both)), Some(IpAddr::from([10, 0, 0, 1])));
            let alone = [(written.0, written.1.as_str())];
            prop_assert_eq!(nets.client_ip(&req("10.0.0.1", &alone)), Some(client));
        }
    }

    #[test]
    fn ipv6_clients_count_by_their_64() {
        assert_eq!(bucket("2001:db8:1:2:aaaa::1".parse().unwrap()), bucket("2001:db8:1:2:bbbb::9".parse().unwrap()));
        assert_ne!(bucket("2001:db8:1:2::1".parse().unwrap()), bucket("2001:db8:1:3::1".parse().unwrap()));
    }
}
