//! How the report writes numbers.

/// Requests (or pages) per second: a whole number with thousands separators, `14,140`.
pub fn per_sec(value: f64) -> String {
    let digits = (value.round() as i64).unsigned_abs().to_string();
    let mut grouped = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    if value.round() < 0.0 {
        grouped.insert(0, '-');
    }
    grouped
}

/// A count with thousands separators: `1,204`.
pub fn count(value: u64) -> String {
    per_sec(value as f64)
}

/// Latency in milliseconds, two decimals.
pub fn ms(value: f64) -> String {
    format!("{value:.2}")
}

pub fn mib(value: f64) -> String {
    format!("{value:.1}")
}

/// CPU as `ps` shows it: 100 = one core.
pub fn cpu_percent(value: f64) -> String {
    format!("{value:.0}")
}

/// A ratio as a whole percentage: 0.453 → `45 %`.
pub fn share(ratio: f64) -> String {
    format!("{:.0} %", ratio * 100.0)
}

/// A spread or a band, one decimal: 0.042 → `4.2 %`.
pub fn percent(ratio: f64) -> String {
    format!("{:.1} %", ratio * 100.0)
}

/// A ratio of two rates: 1.843 → `1.84×`.
pub fn times(ratio: f64) -> String {
    format!("{ratio:.2}×")
}

/// A ratio of two max sustainable rates, one decimal: each is known only to its ladder's step
/// (10–25 %), so a second decimal would claim more than the runs show: 1.843 → `1.8×`.
pub fn rough_times(ratio: f64) -> String {
    format!("{ratio:.1}×")
}

/// A relative change with its sign: 0.2 → `+20.0 %`.
pub fn change(ratio: f64) -> String {
    format!("{:+.1} %", ratio * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands() {
        assert_eq!(per_sec(0.4), "0");
        assert_eq!(per_sec(999.5), "1,000");
        assert_eq!(per_sec(14_140.2), "14,140");
        assert_eq!(per_sec(198_669.0), "198,669");
        assert_eq!(per_sec(1_234_567.0), "1,234,567");
        assert_eq!(per_sec(-1_500.0), "-1,500");
    }

    #[test]
    fn signs_changes() {
        assert_eq!(change(0.2), "+20.0 %");
        assert_eq!(change(-0.05), "-5.0 %");
        assert_eq!(share(0.453), "45 %");
        assert_eq!(percent(0.0425), "4.2 %");
        assert_eq!(times(1.843), "1.84×");
    }
}
