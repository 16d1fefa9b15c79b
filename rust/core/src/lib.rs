//! broadphase-core: every colliding pair among many 2D boxes and circles, exactly.
//!
//! The algorithms of the `broadphase` Python package, with no Python in them:
//! the seeds' linear quadtree in Morton order ([`cells`] with [`quadtree`]
//! placement), a uniform grid ([`grid`]), sort-and-sweep ([`sweep`]) and brute
//! force ([`brute`]), all ending in the same exact narrow phase ([`narrow`]) and
//! the same canonical pair order ([`pairs`]).  [`naive`] is the O(n^2)
//! reference every method is tested against.  [`tree`] is the moving tree,
//! [`tiles`] the tiling of the Dask path.
//!
//! Contract of every search: the result is the set of pairs `(i, j)`, `i < j`,
//! of objects that truly overlap and pass the filters, as rows sorted by
//! `(i, j)`, identical for every method and every thread count.  Inputs are
//! validated by [`check`] before a search; the kernels trust them.

#![warn(missing_docs)]

pub mod bigint;
pub mod brute;
pub mod cells;
pub mod check;
pub mod coherent;
pub mod count;
pub mod few;
pub mod grid;
pub mod hints;
pub mod kept_search;
pub mod key;
pub mod lists;
pub mod memory;
pub mod morton;
pub mod naive;
pub mod narrow;
pub mod nearly;
pub mod pairs;
pub mod pairset;
pub mod par;
pub mod quadtree;
pub mod radix;
pub mod scratch;
pub mod search;
pub mod stop;
pub mod sweep;
pub mod testing;
pub mod tiles;
pub mod tree;
pub mod world;

pub use narrow::{Filters, Narrow, Shapes};
pub use search::{find_pairs, find_pairs_with, Method, Search};
