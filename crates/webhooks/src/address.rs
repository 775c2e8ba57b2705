use std::net::IpAddr;

use ipnet::IpNet;

/// Why a webhook target is refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TargetError {
    #[error("must be an absolute http or https URL")]
    NotHttp,
    #[error("must not contain credentials")]
    Credentials,
    #[error("must name a host after `//` (as in https://hooks.example.com/path)")]
    NoHost,
    #[error("points at a private, loopback or reserved address ({0})")]
    Private(IpAddr),
}

/// Which addresses deliveries may reach: everything public, plus the configured exceptions
/// (`CONTENT_PIPELINE_WEBHOOK_ALLOWED_CIDRS`). Svix's block list, checked after IPv4-mapped
/// IPv6 addresses are normalised to IPv4, plus the deprecated and tunnelling IPv6 ranges that
/// embed or reach an IPv4 address, and the IPv4 address inside an ISATAP interface id. The
/// same check runs on a literal address when a subscription is saved and on every resolved
/// address at connect time.
#[derive(Clone, Debug, Default)]
pub struct AddressPolicy {
    allowed: Vec<IpNet>,
}

const BLOCKED: &[&str] = &[
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.88.99.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "224.0.0.0/4",
    "240.0.0.0/4",
    "255.255.255.255/32",
    // IPv4-compatible (deprecated, RFC 4291); holds :: and ::1.
    "::/96",
    // IPv4-translated (SIIT, RFC 2765).
    "::ffff:0:0:0/96",
    "fe80::/10",
    // Site-local (deprecated, RFC 3879).
    "fec0::/10",
    "fc00::/7",
    "ff00::/8",
    "2001:db8::/32",
    "3fff::/20",
    "100::/64",
    // Teredo: a tunnel whose relays reach the IPv4 addresses it embeds.
    "2001::/32",
    // Benchmarking (RFC 5180).
    "2001:2::/48",
    "2002::/16",
    "64:ff9b::/96",
    "64:ff9b:1::/48",
    "5f00::/16",
];

/// The IPv4 address an ISATAP interface id (`…:0:5efe:a.b.c.d`, `…:200:5efe:a.b.c.d`, RFC 5214)
/// carries: traffic to it is tunnelled to that IPv4 address by the prefix's router.
fn isatap_ipv4(v6: std::net::Ipv6Addr) -> Option<std::net::Ipv4Addr> {
    let s = v6.segments();
    (matches!(s[4], 0 | 0x0200) && s[5] == 0x5efe).then(|| {
        let [a, b] = s[6].to_be_bytes();
        let [c, d] = s[7].to_be_bytes();
        std::net::Ipv4Addr::new(a, b, c, d)
    })
}

/// Parses a comma-separated CIDR list (`127.0.0.0/8,::1/128`); a bare address means /32 or
/// /128, and an empty list is empty.
pub fn parse_cidr_list(list: &str) -> Result<Vec<IpNet>, String> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|item| {
            item.parse::<IpNet>()
                .or_else(|_| item.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| format!("'{item}' is not a CIDR range"))
        })
        .collect()
}

fn normalise(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(v6),
        },
        v4 => v4,
    }
}

impl AddressPolicy {
    /// Parses a comma-separated CIDR list (see [`parse_cidr_list`]).
    pub fn from_allowed_list(list: &str) -> Result<Self, String> {
        parse_cidr_list(list).map(Self::allowing)
    }

    /// Everything public, plus `allowed`.
    pub fn allowing(allowed: Vec<IpNet>) -> Self {
        Self { allowed }
    }

    /// True when `ip` is in the operator's allowed ranges (not merely public): plain-text
    /// transports are only used to such hosts.
    pub fn allows_explicitly(&self, ip: IpAddr) -> bool {
        let ip = normalise(ip);
        self.allowed.iter().any(|net| net.contains(&ip))
    }

    pub fn permits(&self, ip: IpAddr) -> bool {
        let ip = normalise(ip);
        if self.allowed.iter().any(|net| net.contains(&ip)) {
            return true;
        }
        let blocked = BLOCKED
            .iter()
            .filter_map(|b| b.parse::<IpNet>().ok())
            .any(|net| net.contains(&ip));
        let tunnels_to_refused = match ip {
            IpAddr::V6(v6) => isatap_ipv4(v6).is_some_and(|v4| !self.permits(IpAddr::V4(v4))),
            IpAddr::V4(_) => false,
        };
        !blocked && !tunnels_to_refused
    }

    /// Checks a subscription URL before it is stored: http(s), a host, no credentials, and,
    /// when the host is a literal address, an address the policy permits. Host names are
    /// checked again after DNS resolution at connect time.
    pub fn check_url(&self, raw: &str) -> Result<url::Url, TargetError> {
        let url = url::Url::parse(raw).map_err(|_| TargetError::NotHttp)?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(TargetError::NotHttp);
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(TargetError::Credentials);
        }
        // The URL standard reads `http:///x` and `http:x` as the host `x`: what was written
        // names no host, so it is refused rather than guessed.
        let authority = raw
            .trim()
            .get(url.scheme().len()..)
            .and_then(|rest| rest.strip_prefix("://"))
            .ok_or(TargetError::NoHost)?;
        if authority.is_empty() || authority.starts_with(['/', '\\', '?', '#']) {
            return Err(TargetError::NoHost);
        }
        let ip = match url.host() {
            None => return Err(TargetError::NotHttp),
            Some(url::Host::Domain(_)) => None,
            Some(url::Host::Ipv4(v4)) => Some(IpAddr::V4(v4)),
            Some(url::Host::Ipv6(v6)) => Some(IpAddr::V6(v6)),
        };
        match ip {
            Some(ip) if !self.permits(ip) => Err(TargetError::Private(ip)),
            _ => Ok(url),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    const EXAMPLE_PUBLIC: IpAddr = IpAddr::V4(Ipv4Addr::new(93, 184, 215, 14));
    const EXAMPLE_MAPPED_LOOPBACK: IpAddr =
        IpAddr::V6(Ipv6Addr::new(0, 0, 0, 0, 0, 0xffff, 0x7f00, 1));

    #[test]
    fn a_url_must_name_its_host() {
        let p = AddressPolicy::default();
        for bad in [
            "http:///x",
            "https:///",
            "http:x",
            "http:/x",
            "http://",
            "https://?q",
            "https:\\\\hooks.example.com/x",
        ] {
            assert!(
                matches!(
                    p.check_url(bad),
                    Err(TargetError::NoHost | TargetError::NotHttp)
                ),
                "{bad}: {:?}",
                p.check_url(bad)
            );
        }
        for good in [
            "https://hooks.example.com/x",
            "HTTPS://hooks.example.com",
            " https://hooks.example.com/x ",
            "http://93.184.215.14:8080/",
        ] {
            assert!(p.check_url(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn blocks_private_ranges_in_every_form() {
        let p = AddressPolicy::default();
        assert!(p.permits(EXAMPLE_PUBLIC));
        for bad in [
            "127.0.0.1",
            "10.1.2.3",
            "169.254.169.254",
            "100.64.0.1",
            "::1",
            "fd00::1",
            "fe80::1",
            "0.0.0.0",
        ] {
            assert!(!p.permits(bad.parse().unwrap()), "{bad} must be blocked");
        }
        assert!(!p.permits(EXAMPLE_MAPPED_LOOPBACK));
    }

    #[test]
    fn blocks_ipv6_forms_that_embed_or_reach_a_refused_ipv4() {
        let p = AddressPolicy::default();
        for bad in [
            "::127.0.0.1",
            "::10.0.0.1",
            "::8.8.8.8",
            "::ffff:0:127.0.0.1",
            "fec0::1",
            "2001::7f00:1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:2::1",
            "2002:7f00:1::1",
            "64:ff9b::127.0.0.1",
            "64:ff9b:1::a00:1",
            "2606:4700::5efe:127.0.0.1",
            "2606:4700::200:5efe:10.0.0.1",
        ] {
            assert!(!p.permits(bad.parse().unwrap()), "{bad} must be blocked");
        }
        for good in ["2606:4700:4700::1111", "2606:4700::5efe:93.184.215.14"] {
            assert!(p.permits(good.parse().unwrap()), "{good} is public");
        }
    }

    #[test]
    fn allowed_cidrs_open_exactly_their_range() {
        let p = AddressPolicy::from_allowed_list("127.0.0.0/8, ::1").unwrap();
        assert!(p.permits("127.0.0.1".parse().unwrap()));
        assert!(p.permits(EXAMPLE_MAPPED_LOOPBACK));
        assert!(p.permits("::1".parse().unwrap()));
        assert!(!p.permits("10.0.0.1".parse().unwrap()));
        assert!(AddressPolicy::from_allowed_list("nonsense").is_err());
    }

    #[test]
    fn urls_with_literal_private_addresses_are_refused() {
        let p = AddressPolicy::default();
        assert!(p.check_url("https://example.com/hook").is_ok());
        assert_eq!(p.check_url("ftp://example.com"), Err(TargetError::NotHttp));
        assert!(matches!(
            p.check_url("http://127.0.0.1:8080/"),
            Err(TargetError::Private(_))
        ));
        assert!(matches!(
            p.check_url("http://[::ffff:10.0.0.1]/"),
            Err(TargetError::Private(_))
        ));
        assert!(matches!(
            p.check_url("http://[fd12::1]/"),
            Err(TargetError::Private(_))
        ));
        assert_eq!(
            p.check_url("https://u:p@example.com/"),
            Err(TargetError::Credentials)
        );
    }
}
