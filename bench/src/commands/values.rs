//! The values the command line takes besides names: durations (`500ms`), sizes (`512MiB`),
//! shares (`5%`) and per-route latency objectives (`detail=50ms`).

use std::time::Duration;

/// Parses `detail=50ms`.
pub fn parse_slo(text: &str) -> Result<(String, Duration), String> {
    let (route, slo) = text
        .split_once('=')
        .ok_or_else(|| format!("bad SLO {text:?} (e.g. detail=50ms)"))?;
    Ok((route.to_owned(), parse_duration(slo)?))
}

/// `512MiB` as `(512.0, "MiB")`.
fn number_and_unit(text: &str) -> Option<(f64, &str)> {
    let (number, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(text.len()),
    );
    Some((number.parse().ok()?, unit))
}

/// Parses `512MiB`, `1GiB`, `800MB`, or a byte count.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let (value, unit) = number_and_unit(text).ok_or(format!("bad size {text:?} (e.g. 512MiB)"))?;
    let unit_bytes = match unit {
        "" | "B" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        _ => {
            return Err(format!(
                "bad size unit in {text:?} (B, KiB, MiB, GiB, kB, MB, GB)"
            ));
        }
    };
    Ok((value * unit_bytes) as u64)
}

/// Parses `20s`, `500ms`, `2m`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let (value, unit) =
        number_and_unit(text).ok_or(format!("bad duration {text:?} (e.g. 20s, 500ms, 2m, 6h)"))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" | "" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(format!("bad duration unit in {text:?} (ms, s, m or h)")),
    };
    Ok(Duration::from_secs_f64(seconds))
}

/// Parses `5%` (or `0.05`) as 0.05; a share must lie above 0 and below 100 %.
pub fn parse_share(text: &str) -> Result<f64, String> {
    let bad = || format!("bad share {text:?} (e.g. 5%)");
    let share = match text.strip_suffix('%') {
        Some(percent) => percent.trim().parse::<f64>().map_err(|_| bad())? / 100.0,
        None => text.parse::<f64>().map_err(|_| bad())?,
    };
    match share > 0.0 && share < 1.0 {
        true => Ok(share),
        false => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_durations() {
        assert_eq!(parse_duration("20s"), Ok(Duration::from_secs(20)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5h"), Ok(Duration::from_secs(5400)));
        assert!(parse_duration("fast").is_err());
    }

    #[test]
    fn parses_sizes_and_objectives() {
        assert_eq!(parse_bytes("512MiB"), Ok(512 * 1024 * 1024));
        assert_eq!(parse_bytes("800MB"), Ok(800_000_000));
        assert!(parse_bytes("lots").is_err());
        assert_eq!(
            parse_slo("detail=50ms"),
            Ok(("detail".to_owned(), Duration::from_millis(50)))
        );
        assert!(parse_slo("detail").is_err());
        assert_eq!(parse_share("5%"), Ok(0.05));
        assert_eq!(parse_share("0.1"), Ok(0.1));
        assert!(parse_share("0%").is_err() && parse_share("five").is_err());
    }
}
