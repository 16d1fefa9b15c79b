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
//!
//! # Layers
//! Each module uses only modules of its own layer or below, and the modules
//! of one layer use each other without a cycle (`tests/layers.rs` checks
//! it, test code included; doc links may point anywhere).  Bottom first:
//!
//! | layer | modules | what they are |
//! |---|---|---|
//! | leaves | `bigint`, `hints`, `key`, `memory`, `morton`, `naive`, `narrow`, `nearly`, `stop`, `world` | encodings, exact predicates, memory hints, the reference |
//! | pools | `par`, `scratch` | the executor and the scratch buffers (scratch names no kernel type: each pooled type registers its own pool) |
//! | building blocks | `check`, `lists`, `pairs`, `pairset`, `radix` | validation, cell lists, pair sinks and the canonical order, sorting |
//! | kernels | `brute`, `cells`, `count`, `grid`, `quadtree`, `sweep` | one algorithm each |
//! | search | `search`, `testing`, `tiles` | the method choice and a search's tuning; test support; the Dask tiling |
//! | kept searches | `coherent`, `few` | searches kept from frame to frame (they size their grids by the search's rules) |
//! | moving tree | `tree` | the moving tree (a folder's files are one module) |

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
pub mod key;
pub mod lists;
pub mod memory;
pub mod morton;
pub mod naive;
pub mod narrow;
pub mod nearly;
pub mod pairs;
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
