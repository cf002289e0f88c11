//! Statistics of repeated measurements shared by `cpss --runs` (confidence intervals)
//! and `cpperf compare` (whether two sets of runs differ): Student's t quantile and
//! Welch's test.

/// The two-sided 95 % quantile of Student's t with `df` degrees of freedom
/// (`t(0.975, df)`): the table value for 1–30, 40, 60, 120, interpolated linearly in
/// `1/df` between them, and 1.960 (the normal quantile) beyond.
pub fn t_975(df: u32) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    const TAIL: [(f64, f64); 4] = [(30.0, 2.042), (40.0, 2.021), (60.0, 2.000), (120.0, 1.980)];
    match df {
        0 => f64::NAN,
        1..=30 => TABLE[df as usize - 1],
        _ if df >= 120 => {
            // Between 120 and infinity (1.960), linear in 1/df.
            let x = 120.0 / f64::from(df);
            1.960 + (1.980 - 1.960) * x
        }
        _ => {
            let d = f64::from(df);
            let k = TAIL.iter().rposition(|&(lo, _)| lo <= d).unwrap_or(0).min(TAIL.len() - 2);
            let ((d0, t0), (d1, t1)) = (TAIL[k], TAIL[k + 1]);
            let w = (1.0 / d0 - 1.0 / d) / (1.0 / d0 - 1.0 / d1);
            t0 + (t1 - t0) * w
        }
    }
}

/// Welch's t-test of two means with their standard deviations and counts: `(t, df)`,
/// `t` = |m2 − m1| / √(s1²/n1 + s2²/n2) and the Welch–Satterthwaite degrees of freedom.
/// `None` when a side has fewer than two values. With no spread on either side (every
/// run gave the same value, as deterministic runs do) `t` is infinite when the means
/// differ and 0 when they are equal, with `df` = n1 + n2 − 2.
pub fn welch(m1: f64, s1: f64, n1: u32, m2: f64, s2: f64, n2: u32) -> Option<(f64, f64)> {
    if n1 < 2 || n2 < 2 {
        return None;
    }
    // (Counts come from a user's CSV: in f64, so that no sum of two overflows.)
    let (n1, n2) = (f64::from(n1), f64::from(n2));
    let (a, b) = (s1 * s1 / n1, s2 * s2 / n2);
    let se = (a + b).sqrt();
    let d = (m2 - m1).abs();
    if se == 0.0 {
        let t = if d == 0.0 { 0.0 } else { f64::INFINITY };
        return Some((t, n1 + n2 - 2.0));
    }
    let df = (a + b).powi(2) / (a * a / (n1 - 1.0) + b * b / (n2 - 1.0));
    Some((d / se, df))
}

/// Whether Welch's `(t, df)` says the means differ at the 95 % level (two-sided):
/// `t > t_975(⌊df⌋)`.
pub fn significant(t: f64, df: f64) -> bool {
    t > t_975(df.floor().max(1.0) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welch_against_a_hand_computation() {
        // Means 10 and 12, sd 1 and 2, 5 runs each: a = 0.2, b = 0.8, se = 1, t = 2;
        // df = 1 / (0.04/4 + 0.64/4) = 1 / 0.17 = 5.882; t_975(5) = 2.571 > 2: not
        // significant. With 50 runs each: se = √(0.02 + 0.08) = 0.316, t = 6.32,
        // significant.
        let (t, df) = welch(10.0, 1.0, 5, 12.0, 2.0, 5).unwrap();
        assert!((t - 2.0).abs() < 1e-12 && (df - 1.0 / 0.17).abs() < 1e-9, "{t} {df}");
        assert!(!significant(t, df));
        let (t, df) = welch(10.0, 1.0, 50, 12.0, 2.0, 50).unwrap();
        assert!((t - 2.0 / 0.1f64.sqrt()).abs() < 1e-9 && significant(t, df));
        // Deterministic runs: any difference is significant, none is not.
        assert_eq!(welch(3.0, 0.0, 4, 3.5, 0.0, 4), Some((f64::INFINITY, 6.0)));
        assert!(!significant(welch(3.0, 0.0, 4, 3.0, 0.0, 4).unwrap().0, 6.0));
        assert_eq!(welch(3.0, 0.0, 1, 3.5, 0.0, 4), None);
        // The largest counts a CSV can give do not overflow.
        assert_eq!(
            welch(3.0, 0.0, u32::MAX, 3.5, 0.0, u32::MAX),
            Some((f64::INFINITY, 2.0 * f64::from(u32::MAX) - 2.0))
        );
    }
}
