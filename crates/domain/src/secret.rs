/// A value that must not leak into logs: its `Debug` prints `[redacted]`, and the value is
/// reached only through [`Secret::expose`], so every place that uses it says so.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret<T = String>(T);

impl<T> Secret<T> {
    pub fn new(value: T) -> Self {
        Self(value)
    }

    pub fn expose(&self) -> &T {
        &self.0
    }
}

impl<T> std::fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_value() {
        let secret = Secret::new("sk-12345".to_owned());
        assert_eq!(format!("{secret:?}"), "[redacted]");
        assert_eq!(
            format!("{:?}", Some(Secret::new([7u8; 32]))),
            "Some([redacted])"
        );
        assert_eq!(secret.expose(), "sk-12345");
    }
}
