//! Balls of one radius in a periodic domain: the cell list of
//! [`crate::cutoff`] over their images' centres (which then need no
//! boxes), for the `Auto` searches beyond brute force's range.

use super::{over_images, Domain, Refused};
use crate::narrow::{Narrow, Shapes};
use crate::pairs::{Budget, TooMany};
use crate::par::Exec;
use crate::scratch::Pooled;
use crate::search::{Method, Search, Width, BRUTE_BELOW};

/// `list(balls, r, narrow, budget)` (a cell list's run) over the images of
/// the balls of `s` (`balls`, all of radius `r`) in the periodic `domain`; `None` when `s` is not such a search (another method, radii
/// that differ, few balls) or the cell list declined.
pub(super) fn by_cutoff<const C: usize, const N: usize, T>(
    s: &Search<N>,
    balls: &[[f64; C]],
    domain: Domain,
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
    let im = match domain.of_balls::<C, N>(balls, false, ex) {
        Ok(im) => im,
        Err(bad) => return Some(Err(Refused::Bad(bad))),
    };
    let found = over_images(s, domain, &im, balls, Shapes::Boxes, |narrow| {
        list(&im.balls, r, &narrow, &budget)
    });
    im.give_back();
    found.map(|f| f.map_err(Refused::TooMany))
}
