//! broadphase-core: every colliding pair among many boxes and circles (2D)
//! or boxes and spheres (3D), exactly.
//!
//! The algorithms of the `broadphase` Python package, with no Python in them:
//! the seeds' linear quadtree in Morton order, a uniform grid on the same
//! machinery, sort-and-sweep and brute force, all ending in the same exact
//! narrow phase ([`narrow`]) and the same canonical pair order.  Every
//! method is written once over the dimension ([`dim`] owns the layout of a
//! box row: 4 values in 2D, 6 in 3D; in 3D the quadtree is the seeds'
//! octree, [`morton`]'s 3-bit groups).  [`naive`]
//! is the O(n^2) reference every method is tested against.  [`tree`] is the
//! moving tree, [`tiles`] the tiling of the Dask path.
//!
//! Contract of every search: the result is the set of pairs `(i, j)`, `i < j`,
//! of objects that truly overlap and pass the filters, as rows sorted by
//! `(i, j)`, identical for every method and every thread count.  Inputs are
//! validated by [`check`] before a search ([`Search::of_boxes`] does it); the
//! kernels trust them.
//!
//! # Example
//! ```
//! use broadphase_core::tree::{Attrs, Tree};
//! use broadphase_core::{find_pairs, unpack, Exec, Search};
//!
//! // minx, miny, maxx, maxy; boxes 0 and 3 only touch, which is no collision
//! let boxes = [[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 3.0], [5.0, 5.0, 6.0, 6.0], [2.0, 0.0, 4.0, 1.0]];
//! let ex = Exec::new(None); // all the machine's threads; Exec::serial() for none
//! let search = Search::of_boxes(&boxes, &ex).expect("finite boxes, min <= max");
//! assert_eq!(find_pairs(&search, &ex).unwrap(), vec![0, 1]); // rows (i, j), flat
//!
//! // objects that move, frame by frame
//! let mut tree = Tree::new([0.0, 0.0, 8.0, 8.0], 3, 0.0);
//! let h = tree.insert(&boxes, None, Attrs::default(), &ex);
//! let first = tree.update(&ex, None).unwrap();
//! assert_eq!(first.began.iter().map(|&p| unpack(p)).collect::<Vec<_>>(), [(0, 1)]);
//! tree.move_to(&[h[0] as i64, h[2] as i64], &[[6.0, 0.0, 7.0, 1.0], [2.5, 0.5, 3.5, 1.5]], None, &ex);
//! let second = tree.update(&ex, None).unwrap();
//! assert_eq!(second.began.iter().map(|&p| unpack(p)).collect::<Vec<_>>(), [(1, 2), (2, 3)]);
//! assert_eq!(second.ended.iter().map(|&p| unpack(p)).collect::<Vec<_>>(), [(0, 1)]);
//! assert_eq!(tree.pairs(&ex, None).unwrap(), vec![1, 2, 2, 3]);
//! ```
//!
//! # Layers
//! Each module uses only modules of its own layer or below, and the modules
//! of one layer use each other without a cycle (`tests/layers.rs` checks
//! it, test code included; doc links may point anywhere).  Bottom first:
//!
//! | layer | modules | what they are |
//! |---|---|---|
//! | leaves | `bigint`, `dim`, `forked`, `hints`, `key`, `memory`, `morton`, `naive`, `narrow`, `nearly`, `param`, `stop`, `world` | encodings, exact predicates (`param`: where rays and moving objects meet), memory hints, the reference, a forked child for tests |
//! | pools | `par`, `scratch` | the executor and the scratch buffers (scratch names no kernel type: each pooled type registers its own pool) |
//! | building blocks | `check`, `lists`, `pairs`, `pairset`, `radix` | validation, cell lists, pair sinks and the canonical order, sorting |
//! | kernels | `brute`, `cells`, `count`, `cutoff`, `grid`, `quadtree`, `sweep` | one algorithm each |
//! | search | `search`, `testing`, `tiles` | the method choice and a search's tuning; test support; the Dask tiling |
//! | periodic | `periodic` | searches in a periodic domain (over the objects' images), distances and vectors |
//! | kept searches | `coherent`, `few`, `kept_search` | searches kept from frame to frame (they size their grids by the search's rules), and the choice among them |
//! | casts | `rays`, `swept` | batched ray casts; swept pairs (continuous collision) |
//! | moving tree | `tree` | the moving tree (a folder's files are one module) |

#![warn(missing_docs)]

// The API: what a Rust program needs.
pub mod check;
pub mod dim;
pub mod morton;
pub mod naive;
pub mod narrow;
pub mod periodic;
pub mod rays;
pub mod swept;
pub mod tiles;
pub mod tree;

pub use narrow::{Filters, Narrow, Shapes, BOX, CIRCLE};
pub use pairs::{pack, unpack, TooMany};
pub use par::Exec;
pub use search::{find_pairs, find_pairs_counted, find_pairs_with, Method, Search, Width};
pub use stop::{Stop, Stopped};

// For the bindings and this crate's own tests only: public so that they can
// reach them, hidden from the docs, and no part of the API (they change
// with the implementation).
#[doc(hidden)]
pub mod key;
#[doc(hidden)]
pub mod lists;
#[doc(hidden)]
pub mod memory;
#[doc(hidden)]
pub mod pairs;
#[doc(hidden)]
pub mod pairset;
#[doc(hidden)]
pub mod par;
#[doc(hidden)]
pub mod scratch;
#[doc(hidden)]
pub mod search;
#[doc(hidden)]
pub mod testing;
#[doc(hidden)]
pub mod world;

// The implementation.
mod bigint;
mod brute;
mod cells;
mod coherent;
mod count;
mod cutoff;
mod few;
#[cfg(all(test, unix))]
mod forked;
mod grid;
mod hints;
mod kept_search;
mod nearly;
mod param;
mod quadtree;
mod radix;
mod stop;
mod sweep;
