//! Latency samples and how they are printed.

use std::fmt;
use std::time::Duration;

/// Sorted durations.
#[derive(Debug, Clone, Default)]
pub struct Sample(Vec<Duration>);

impl Sample {
    pub fn new(mut values: Vec<Duration>) -> Sample {
        values.sort();
        Sample(values)
    }

    /// The `q`-quantile (0.5 for the median), nearest rank.
    pub fn quantile(&self, q: f64) -> Duration {
        if self.0.is_empty() {
            return Duration::ZERO;
        }
        let i = ((self.0.len() - 1) as f64 * q).round() as usize;
        self.0[i.min(self.0.len() - 1)]
    }

    pub fn p50(&self) -> Duration {
        self.quantile(0.5)
    }

    pub fn p99(&self) -> Duration {
        self.quantile(0.99)
    }

    pub fn max(&self) -> Duration {
        self.0.last().copied().unwrap_or_default()
    }
}

/// Milliseconds with two decimals.
pub struct Ms(pub Duration);

impl fmt::Display for Ms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.2} ms", self.0.as_secs_f64() * 1e3)
    }
}

/// "p50 / p99" of a sample.
pub struct P50P99<'a>(pub &'a Sample);

impl fmt::Display for P50P99<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} / {}", Ms(self.0.p50()), Ms(self.0.p99()))
    }
}

/// `a / b` as "N.N×", or "–" when `b` is zero.
pub fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 && a / b < 10.0 {
        format!("{:.2}×", a / b)
    } else if b > 0.0 {
        format!("{:.0}×", a / b)
    } else {
        "–".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_nearest_ranks() {
        let s = Sample::new((1..=100).rev().map(Duration::from_millis).collect());
        assert_eq!(s.p50(), Duration::from_millis(51));
        assert_eq!(s.p99(), Duration::from_millis(99));
        assert_eq!(s.max(), Duration::from_millis(100));
        assert_eq!(Sample::default().p50(), Duration::ZERO);
        assert_eq!(ratio(3.0, 2.0), "1.50×");
        assert_eq!(ratio(300.0, 2.0), "150×");
        assert_eq!(ratio(1.0, 0.0), "–");
    }
}
