//! The client's IP address, the one every IP-keyed rate limit and log uses.
//!
//! It is the TCP peer (axum's `ConnectInfo`), unless that peer is one of
//! the configured trusted proxies (`[server] trusted_proxies`,
//! `TRUSTED_PROXIES`): then it is the address the proxies forwarded for,
//! read from `X-Forwarded-For` right to left, skipping the trusted hops.
//! Anyone can write that header, so from any other peer it is ignored:
//! a client cannot pick its own rate-limit key.
//!
//! The server's front middleware (`observability::observe`) stores a
//! `ClientIp` in the request's extensions; handlers take `ClientIp` as an
//! extractor, and the request layer copies it into `RequestMeta::ip`.

use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::HeaderMap;

/// An IP network: `10.0.0.0/8`, `::1/128`, or one address (`127.0.0.1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    network: IpAddr,
    prefix: u8,
}

impl FromStr for Cidr {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("'{text}' is not an IP address or network (a.b.c.d/n)");
        let (address, prefix) = match text.trim().split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text.trim(), None),
        };
        let network: IpAddr = address.parse().map_err(|_| bad())?;
        let width = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= width)
                .ok_or_else(bad)?,
            None => width,
        };
        Ok(Cidr { network, prefix })
    }
}

impl Cidr {
    pub fn contains(&self, ip: IpAddr) -> bool {
        // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d.
        match (self.network, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                masked(u32::from(net).into(), self.prefix, 32)
                    == masked(u32::from(ip).into(), self.prefix, 32)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                masked(net.into(), self.prefix, 128) == masked(ip.into(), self.prefix, 128)
            }
            _ => false,
        }
    }
}

/// The top `prefix` bits of a `width`-bit address.
fn masked(address: u128, prefix: u8, width: u32) -> u128 {
    let host_bits = width - u32::from(prefix);
    if host_bits >= 128 {
        0
    } else {
        address >> host_bits
    }
}

/// The peers whose `X-Forwarded-For` is believed. Empty: nobody's.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Arc<Vec<Cidr>>);

impl TrustedProxies {
    pub fn parse(list: &[String]) -> Result<Self, String> {
        let networks = list
            .iter()
            .map(|n| n.parse())
            .collect::<Result<Vec<Cidr>, _>>()?;
        Ok(Self(Arc::new(networks)))
    }

    pub fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|n| n.contains(ip))
    }

    /// The client behind `peer`: `peer` itself unless it is trusted; then
    /// the right-most forwarded address that is not a trusted proxy (or the
    /// left-most one when all are). An entry that is not an address ends
    /// the walk at the hop that added it.
    pub fn client_ip(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.trusts(peer) {
            return peer;
        }
        let forwarded: Vec<&str> = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect();
        let mut client = peer;
        for hop in forwarded.iter().rev() {
            let Ok(ip) = hop.parse::<IpAddr>() else {
                break;
            };
            client = ip;
            if !self.trusts(ip) {
                break;
            }
        }
        client
    }
}

/// The client's address (`None` only when the server runs without
/// `ConnectInfo`, as in router unit tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIp(pub Option<IpAddr>);

impl ClientIp {
    /// The rate-limit and log key.
    pub fn key(&self) -> String {
        self.0
            .map(|ip| ip.to_canonical().to_string())
            .unwrap_or_else(|| "unknown".into())
    }

    pub(crate) fn of(
        parts_extensions: &axum::http::Extensions,
        headers: &HeaderMap,
        trusted: &TrustedProxies,
    ) -> Self {
        let peer = parts_extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        ClientIp(peer.map(|peer| trusted.client_ip(peer, headers)))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(match parts.extensions.get::<ClientIp>() {
            Some(ip) => *ip,
            // Without the middleware, trust nobody.
            None => ClientIp::of(
                &parts.extensions,
                &parts.headers,
                &TrustedProxies::default(),
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn forwarded(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", value.parse().unwrap());
        headers
    }

    #[test]
    fn networks_contain_their_addresses_only() {
        let net: Cidr = "10.1.0.0/16".parse().unwrap();
        assert!(net.contains(ip("10.1.200.3")));
        assert!(!net.contains(ip("10.2.0.1")));
        assert!(!net.contains(ip("::1")));
        let one: Cidr = "127.0.0.1".parse().unwrap();
        assert!(one.contains(ip("127.0.0.1")));
        assert!(one.contains(ip("::ffff:127.0.0.1")));
        assert!(!one.contains(ip("127.0.0.2")));
        let all: Cidr = "0.0.0.0/0".parse().unwrap();
        assert!(all.contains(ip("8.8.8.8")));
        let v6: Cidr = "fd00::/8".parse().unwrap();
        assert!(v6.contains(ip("fd12::1")));
        assert!(!v6.contains(ip("fe80::1")));
        for bad in ["10.0.0.0/33", "::/129", "10.0.0/8", "x", "10.0.0.0/"] {
            assert!(bad.parse::<Cidr>().is_err(), "{bad}");
        }
    }

    #[test]
    fn forwarded_for_counts_only_from_trusted_peers() {
        let none = TrustedProxies::default();
        let headers = forwarded("1.2.3.4");
        assert_eq!(none.client_ip(ip("127.0.0.1"), &headers), ip("127.0.0.1"));
        let proxies = TrustedProxies::parse(&["127.0.0.1/32".into(), "10.0.0.0/8".into()]).unwrap();
        assert_eq!(proxies.client_ip(ip("127.0.0.1"), &headers), ip("1.2.3.4"));
        assert_eq!(proxies.client_ip(ip("9.9.9.9"), &headers), ip("9.9.9.9"));
        // The client wrote a first entry itself: the proxies' entries count.
        let spoofed = forwarded("6.6.6.6, 1.2.3.4, 10.0.0.7");
        assert_eq!(proxies.client_ip(ip("127.0.0.1"), &spoofed), ip("1.2.3.4"));
        // No header: the proxy itself. Garbage: the hop that added it.
        assert_eq!(
            proxies.client_ip(ip("127.0.0.1"), &HeaderMap::new()),
            ip("127.0.0.1")
        );
        assert_eq!(
            proxies.client_ip(ip("127.0.0.1"), &forwarded("1.2.3.4, junk")),
            ip("127.0.0.1")
        );
        // Only proxies: the left-most.
        assert_eq!(
            proxies.client_ip(ip("127.0.0.1"), &forwarded("10.0.0.1, 10.0.0.2")),
            ip("10.0.0.1")
        );
    }
}
