//! Balls of one radius in a periodic domain: the cell list of
//! [`crate::cutoff`] over their images' centres (which then need no
//! boxes), for the `Auto` searches beyond brute force's range.

use super::{images, over_images, Refused};
use crate::narrow::{Narrow, Shapes};
use crate::pairs::{Budget, TooMany};
use crate::par::Exec;
use crate::scratch::Pooled;
use crate::search::{Method, Search, Width, BRUTE_BELOW};

/// `list(balls, r, narrow, budget)` (a cell list's run) over the images of
/// the balls of `s` (`balls`, all of radius `r`) in the domain of period
/// `period`; `None` when `s` is not such a search (another method, radii
/// that differ, few balls) or the cell list declined.
pub(super) fn by_cutoff<const C: usize, const N: usize, T>(
    s: &Search<N>,
    balls: &[[f64; C]],
    period: &[f64],
    ex: &Exec,
    list: impl FnOnce(&[[f64; C]], f64, &Narrow, &Budget) -> Option<Result<T, TooMany>>,
) -> Option<Result<T, Refused>>
where
    [f64; N]: Width<N> + Pooled,
    [f64; C]: Pooled,
{
    let r = balls.first()?[C - 1];
    if s.method != Method::Auto || balls.len() < BRUTE_BELOW || balls.iter().any(|b| b[C - 1] != r)
    {
        return None;
    }
    let budget = Budget::of(s.max_pairs).stopped_with(ex);
    let im = match images::of_balls::<C, N>(balls, period, false, ex) {
        Ok(im) => im,
        Err(bad) => return Some(Err(Refused::Bad(bad))),
    };
    let found = over_images(s, period, &im, balls, Shapes::Boxes, |narrow| {
        list(&im.balls, r, &narrow, &budget)
    });
    im.give_back();
    found.map(|f| f.map_err(Refused::TooMany))
}
