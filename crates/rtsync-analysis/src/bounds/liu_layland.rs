//! The Liu and Layland bound with blocking.
//!
//! Sha, Rajkumar and Lehoczky (1990), Theorem 16: task `τ_i` meets its
//! deadlines under rate-monotonic priorities if
//! `Σ_{j ≤ i} U_j + B_i / T_i ≤ i (2^{1/i} - 1)`. Their Corollary 17 (paper
//! 001 Eq. 3) checks the single condition `Σ U + max_i B_i / T_i ≤
//! n (2^{1/n} - 1)`, which implies Theorem 16 for every `i` (the left side
//! only grows and the right side only shrinks with `i`); rtsync checks the
//! per-task form, which accepts everything the corollary accepts. Tasks of
//! equal priority count as higher priority for each other, as in paper 001,
//! Appendix A, Lemma 1.2.

use super::BoundTask;

/// `n (2^{1/n} - 1)`.
pub fn ll_bound(n: usize) -> f64 {
    let n = n as f64;
    n * (2f64.powf(1.0 / n) - 1.0)
}

/// The first task failing the bound, if any.
pub fn check(ts: &[BoundTask]) -> Result<(), usize> {
    for x in ts {
        let above: Vec<&BoundTask> = ts.iter().filter(|y| y.prio >= x.prio).collect();
        let u: f64 = above.iter().map(|y| y.u).sum();
        if u + x.b > ll_bound(above.len()) + 1e-12 {
            return Err(x.id);
        }
    }
    Ok(())
}

/// Paper 001 Eq. 3 (Sha et al. 1990, Corollary 17), exactly as written.
pub fn check_corollary(ts: &[BoundTask]) -> bool {
    if ts.is_empty() {
        return true;
    }
    let u: f64 = ts.iter().map(|y| y.u).sum();
    let b = ts.iter().map(|y| y.b).fold(0.0, f64::max);
    u + b <= ll_bound(ts.len()) + 1e-12
}
