//! The client's IP address, believed only as far as the deployer said.
//!
//! The binding passes the connection's peer address (`remoteAddress`). If
//! that peer is a trusted proxy (`trustedProxies`, a list of CIDR ranges;
//! empty by default), `X-Forwarded-For` (or the standard `Forwarded`) is
//! read from the right: each address that is itself a trusted proxy is
//! skipped, and the first one that is not is the client. Anything a client
//! writes in those headers is ignored when the peer is not trusted, so a
//! spoofed `X-Forwarded-For` changes nothing.

use std::net::IpAddr;

use ipnet::IpNet;

use crate::error::ConfigError;
use crate::http::AuthRequest;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    pub fn none() -> TrustedProxies {
        TrustedProxies(Vec::new())
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
            .map(TrustedProxies)
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// The client's address, or `None` when the binding gave no peer
    /// address (or one that does not parse).
    pub fn client_ip(&self, req: &AuthRequest) -> Option<IpAddr> {
        let peer = parse_ip(req.remote_address.as_deref()?)?;
        if !self.trusts(peer) {
            return Some(peer);
        }
        // Hops, nearest last: X-Forwarded-For values, else Forwarded's `for=`.
        let mut hops: Vec<IpAddr> = Vec::new();
        for (name, value) in &req.headers {
            if name.eq_ignore_ascii_case("x-forwarded-for") {
                hops.extend(value.split(',').filter_map(parse_ip));
            }
        }
        if hops.is_empty() {
            for (name, value) in &req.headers {
                if name.eq_ignore_ascii_case("forwarded") {
                    hops.extend(value.split([',', ';']).filter_map(|pair| {
                        let (key, v) = pair.split_once('=')?;
                        key.trim().eq_ignore_ascii_case("for").then(|| parse_ip(v)).flatten()
                    }));
                }
            }
        }
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
        assert_eq!(proxy.client_ip(&req("::1", &fwd)).unwrap().to_string(), "2001:db8::1");
        assert_eq!(proxy.client_ip(&req("10.0.0.1", &[])).unwrap().to_string(), "10.0.0.1");
        assert_eq!(none.client_ip(&req("::ffff:1.2.3.4", &[])).unwrap().to_string(), "1.2.3.4");
        assert_eq!(none.client_ip(&req("[::1]:5000", &[])).unwrap().to_string(), "::1");
        assert!(none.client_ip(&AuthRequest::get("http://x/")).is_none());
        assert_eq!(TrustedProxies::parse(&["nope".into()]).unwrap_err().option, "trustedProxies[0]");
    }

    #[test]
    fn ipv6_clients_count_by_their_64() {
        assert_eq!(bucket("2001:db8:1:2:aaaa::1".parse().unwrap()), bucket("2001:db8:1:2:bbbb::9".parse().unwrap()));
        assert_ne!(bucket("2001:db8:1:2::1".parse().unwrap()), bucket("2001:db8:1:3::1".parse().unwrap()));
    }
}
