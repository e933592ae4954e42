//! The hyperbolic bound with blocking and non-unique priorities.
//!
//! Bini, Buttazzo and Buttazzo (2003) give `Π (U_j + 1) ≤ 2` for
//! rate-monotonic scheduling; with blocking, paper 001 Eq. 2 checks per task
//! `Π_{j: p_j > p_i} (U_j + 1) · ((C_i + B_i)/T_i + 1) ≤ 2`, and paper 001
//! Eq. 4 (proved in its Appendix A) extends the product to tasks of equal
//! priority: `Π_{j: p_j ≥ p_i, j ≠ i} (U_j + 1) · ((C_i + B_i)/T_i + 1) ≤ 2`.
//! With unique priorities the two coincide; rtsync implements Eq. 4.
//!
//! **Eq. 4 needs equal periods among equal priorities.** Appendix A,
//! Lemma 1.2, treats equal-priority tasks as higher-priority ones released
//! just before `τ_i`. Bini's bound assumes rate-monotonic order, which that
//! reordering keeps only if those tasks' periods are not longer than
//! `τ_i`'s. Counter-example: B (C = 50 ms, T = 100 ms) and A (C = 1 ms,
//! T = 10 ms) at one priority give `1.5 · 1.1 = 1.65 ≤ 2`, yet A can wait
//! 50 ms behind B and miss its 10 ms deadline. [`super::tasks_on`] therefore
//! refuses equal priorities with unequal periods (the test reports itself
//! not applicable); with equal periods, the case the paper motivates, the
//! lemma holds.

use super::BoundTask;

/// The first task failing Eq. 4, if any.
pub fn check(ts: &[BoundTask]) -> Result<(), usize> {
    for x in ts {
        let mut prod = x.u + x.b + 1.0;
        for y in ts.iter().filter(|y| y.id != x.id && y.prio >= x.prio) {
            prod *= y.u + 1.0;
        }
        if prod > 2.0 + 1e-12 {
            return Err(x.id);
        }
    }
    Ok(())
}
