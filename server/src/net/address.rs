//! Who a call comes from, as far as quotas and caps can tell: the client's address, one key
//! per client rather than per socket.
//!
//! - An IPv6 client is keyed by its network prefix (`/64` by default): one subscriber gets a
//!   whole /64 and may use any of its 2^64 addresses, so keying the exact address would give
//!   it 2^64 quotas. An IPv4-mapped IPv6 address is its IPv4 address.
//! - Behind a reverse proxy every connection comes from the proxy. A connection from a
//!   `--trusted-proxy` network is keyed by the client the proxy names in `Forwarded`
//!   (RFC 7239) or, without it, `X-Forwarded-For`: the right-most address that is not itself a
//!   trusted proxy (addresses to its left were written by the client and prove nothing). A
//!   header from anyone else is ignored, or a client could pick its own key.

use std::net::IpAddr;

use http::HeaderMap;
use ipnet::IpNet;

/// How client addresses are read and keyed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressPolicy {
    /// IPv6 clients are keyed by this many leading bits (1..=128).
    pub ipv6_prefix: u8,
    /// Networks of the reverse proxies whose forwarding headers are believed.
    pub trusted_proxies: Vec<IpNet>,
}

impl Default for AddressPolicy {
    fn default() -> AddressPolicy {
        AddressPolicy {
            ipv6_prefix: 64,
            trusted_proxies: Vec::new(),
        }
    }
}

/// The key of the client a call comes from (see the module's header), in the request's
/// extensions for everything that counts per address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientAddr(pub IpAddr);

impl ClientAddr {
    /// The key a request carries, if the transport gave it one.
    pub fn of(extensions: &http::Extensions) -> Option<IpAddr> {
        extensions.get::<ClientAddr>().map(|c| c.0)
    }
}

impl AddressPolicy {
    /// The key of an address: an IPv6 address cut to its prefix.
    pub fn key(&self, address: IpAddr) -> IpAddr {
        match address {
            IpAddr::V4(_) => address,
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => {
                    let prefix = self.ipv6_prefix.clamp(1, 128);
                    let mask = u128::MAX << (128 - u32::from(prefix));
                    IpAddr::V6((u128::from(v6) & mask).into())
                }
            },
        }
    }

    /// Whether a connection from `peer` is one of the trusted proxies.
    pub fn is_trusted(&self, peer: IpAddr) -> bool {
        let peer = canonical(peer);
        self.trusted_proxies.iter().any(|net| net.contains(&peer))
    }

    /// The key of the client behind a connection from `peer` that sent `headers`.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.is_trusted(peer) {
            return self.key(peer);
        }
        let chain = forwarded_for(headers).or_else(|| x_forwarded_for(headers));
        let Some(chain) = chain else {
            return self.key(peer);
        };
        // From the proxy backwards: the first address not a trusted proxy is the client.
        let client = chain
            .iter()
            .rev()
            .find(|a| !self.is_trusted(**a))
            .or(chain.first())
            .copied()
            .unwrap_or(peer);
        self.key(client)
    }
}

fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
        v4 => v4,
    }
}

/// The `for=` addresses of every `Forwarded` header, in order; None if there is none, or one
/// that does not parse (then nothing it says is believed).
fn forwarded_for(headers: &HeaderMap) -> Option<Vec<IpAddr>> {
    let mut chain = Vec::new();
    let mut any = false;
    for value in headers.get_all(http::header::FORWARDED) {
        any = true;
        let value = value.to_str().ok()?;
        for element in value.split(',') {
            for pair in element.split(';') {
                let (name, node) = pair.trim().split_once('=')?;
                if name.trim().eq_ignore_ascii_case("for") {
                    chain.push(node_address(node.trim())?);
                }
            }
        }
    }
    (any && !chain.is_empty()).then_some(chain)
}

/// A `Forwarded` node: `192.0.2.60`, `"[2001:db8::17]:4711"`, `"192.0.2.60:80"`. Obfuscated
/// and `unknown` nodes name no address.
fn node_address(node: &str) -> Option<IpAddr> {
    let node = node.trim_matches('"');
    if let Some(rest) = node.strip_prefix('[') {
        return rest.split_once(']')?.0.parse().ok();
    }
    node.parse()
        .ok()
        .or_else(|| node.rsplit_once(':')?.0.parse().ok())
}

/// The addresses of every `X-Forwarded-For` header, in order.
fn x_forwarded_for(headers: &HeaderMap) -> Option<Vec<IpAddr>> {
    let mut chain = Vec::new();
    for value in headers.get_all("x-forwarded-for") {
        for address in value.to_str().ok()?.split(',') {
            chain.push(node_address(address.trim())?);
        }
    }
    (!chain.is_empty()).then_some(chain)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                value.parse().unwrap(),
            );
        }
        map
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn an_ipv6_client_is_keyed_by_its_prefix_and_an_ipv4_one_by_its_address() {
        let policy = AddressPolicy::default();
        assert_eq!(
            policy.key(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd")),
            ip("2001:db8:1:2::")
        );
        assert_eq!(
            policy.key(ip("2001:db8:1:2::1")),
            policy.key(ip("2001:db8:1:2:ffff::9"))
        );
        assert_ne!(
            policy.key(ip("2001:db8:1:2::1")),
            policy.key(ip("2001:db8:1:3::1"))
        );
        assert_eq!(policy.key(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(policy.key(ip("192.0.2.7")), ip("192.0.2.7"));
        let exact = AddressPolicy {
            ipv6_prefix: 128,
            ..AddressPolicy::default()
        };
        assert_eq!(exact.key(ip("2001:db8::1")), ip("2001:db8::1"));
    }

    #[test]
    fn forwarding_headers_are_believed_only_from_a_trusted_proxy() {
        let policy = AddressPolicy {
            trusted_proxies: vec!["10.0.0.0/8".parse().unwrap()],
            ..AddressPolicy::default()
        };
        let forwarded = headers(&[("x-forwarded-for", "198.51.100.4")]);
        assert_eq!(
            policy.client(ip("10.1.2.3"), &forwarded),
            ip("198.51.100.4")
        );
        // Anyone else may say what it likes: it is keyed by its own address.
        assert_eq!(
            policy.client(ip("203.0.113.9"), &forwarded),
            ip("203.0.113.9")
        );
        // No header: the proxy itself.
        assert_eq!(
            policy.client(ip("10.1.2.3"), &HeaderMap::new()),
            ip("10.1.2.3")
        );
    }

    #[test]
    fn the_client_is_the_right_most_address_no_trusted_proxy_wrote() {
        let policy = AddressPolicy {
            trusted_proxies: vec!["10.0.0.0/8".parse().unwrap()],
            ..AddressPolicy::default()
        };
        // The client forged the first entry; the edge proxy appended the real one, then an
        // inner proxy its own.
        let chain = headers(&[("x-forwarded-for", "1.2.3.4, 198.51.100.4, 10.9.9.9")]);
        assert_eq!(policy.client(ip("10.1.2.3"), &chain), ip("198.51.100.4"));
        let rfc = headers(&[(
            "forwarded",
            r#"for=1.2.3.4;proto=https, for="[2001:db8:cafe::17]:4711";by=10.0.0.1"#,
        )]);
        assert_eq!(
            policy.client(ip("10.1.2.3"), &rfc),
            ip("2001:db8:cafe::"),
            "an IPv6 client keyed by its /64"
        );
        // Forwarded wins over X-Forwarded-For; a malformed one is not believed at all.
        let both = headers(&[
            ("forwarded", "for=198.51.100.7"),
            ("x-forwarded-for", "198.51.100.8"),
        ]);
        assert_eq!(policy.client(ip("10.1.2.3"), &both), ip("198.51.100.7"));
        let broken = headers(&[("forwarded", "for=_hidden")]);
        assert_eq!(policy.client(ip("10.1.2.3"), &broken), ip("10.1.2.3"));
        let garbage = headers(&[("x-forwarded-for", "not an address")]);
        assert_eq!(policy.client(ip("10.1.2.3"), &garbage), ip("10.1.2.3"));
    }
}
