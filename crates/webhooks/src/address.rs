use std::net::IpAddr;

use ipnet::IpNet;

/// Why a webhook target is refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TargetError {
    #[error("must be an absolute http or https URL")]
    NotHttp,
    #[error("must not contain credentials")]
    Credentials,
    #[error("points at a private, loopback or reserved address ({0})")]
    Private(IpAddr),
}

/// Which addresses deliveries may reach: everything public, plus the configured exceptions
/// (`CONTENT_PIPELINE_WEBHOOK_ALLOWED_CIDRS`). Svix's block list, checked after IPv4-mapped
/// IPv6 addresses are normalised to IPv4.
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
    "::/128",
    "::1/128",
    "fe80::/10",
    "fc00::/7",
    "ff00::/8",
    "2001:db8::/32",
    "3fff::/20",
    "100::/64",
    "2002::/16",
    "64:ff9b::/96",
    "64:ff9b:1::/48",
    "5f00::/16",
];

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
    /// Parses a comma-separated CIDR list (`127.0.0.0/8,::1/128`); a bare address means /32
    /// or /128.
    pub fn from_allowed_list(list: &str) -> Result<Self, String> {
        let mut allowed = Vec::new();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let net = item
                .parse::<IpNet>()
                .or_else(|_| item.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| format!("'{item}' is not a CIDR range"))?;
            allowed.push(net);
        }
        Ok(Self { allowed })
    }

    pub fn permits(&self, ip: IpAddr) -> bool {
        let ip = normalise(ip);
        if self.allowed.iter().any(|net| net.contains(&ip)) {
            return true;
        }
        !BLOCKED
            .iter()
            .filter_map(|b| b.parse::<IpNet>().ok())
            .any(|net| net.contains(&ip))
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
