//! The filter arguments of a search or an insert (`groups`, `categories`,
//! `masks`): checked against the number of objects, then copied.
//!
//! One owner for what both `find_pairs` and `Tree.insert` do with them:
//! [`FilterArgs::of`] takes the caller's arrays (each optional, `None`
//! meaning the default: group 0, all bits) as slices of the right length,
//! with the GIL held; [`FilterArgs::copy`] copies them (`crate::owned`:
//! the core reads only memory no other thread can write) once the GIL is
//! released; the copies lend themselves to the core as [`Filters`] (a
//! search) or [`Attrs`] (an insert).

use broadphase_core::par::Exec;
use broadphase_core::tree::Attrs;
use broadphase_core::Filters;
use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::PyResult;

use crate::{owned, slice};

/// The filter arrays as the caller gave them: one value per object, or `None`.
#[derive(Clone, Copy)]
pub struct FilterArgs<'a> {
    groups: Option<&'a [i64]>,
    categories: Option<&'a [u64]>,
    masks: Option<&'a [u64]>,
}

/// Owned copies of [`FilterArgs`].
pub struct OwnedFilters {
    groups: Option<Vec<i64>>,
    categories: Option<Vec<u64>>,
    masks: Option<Vec<u64>>,
}

/// A C-contiguous array of `n` values, or `None`; `ValueError` naming it
/// for another length (the filters' and the rays' per-item arguments).
pub(crate) fn of_length<'a, T: numpy::Element>(
    a: &'a Option<PyReadonlyArray1<'_, T>>,
    name: &str,
    n: usize,
) -> PyResult<Option<&'a [T]>> {
    let Some(a) = a else { return Ok(None) };
    let s = slice(a, name)?;
    if s.len() != n {
        return Err(PyValueError::new_err(format!(
            "{name}: expected shape ({n},), found ({},)",
            s.len()
        )));
    }
    Ok(Some(s))
}

impl<'a> FilterArgs<'a> {
    /// The caller's arrays for `n` objects (the Python layer gives them of
    /// the right dtype and length; a wrong length is still refused here).
    pub fn of(
        groups: &'a Option<PyReadonlyArray1<'_, i64>>,
        categories: &'a Option<PyReadonlyArray1<'_, u64>>,
        masks: &'a Option<PyReadonlyArray1<'_, u64>>,
        n: usize,
    ) -> PyResult<FilterArgs<'a>> {
        Ok(FilterArgs {
            groups: of_length(groups, "groups", n)?,
            categories: of_length(categories, "categories", n)?,
            masks: of_length(masks, "masks", n)?,
        })
    }

    /// Copies of the given arrays (a `MemoryError` naming the one that does
    /// not fit).
    pub fn copy(&self, ex: &Exec) -> PyResult<OwnedFilters> {
        Ok(OwnedFilters {
            groups: owned::copy_opt(self.groups, "groups", ex)?,
            categories: owned::copy_opt(self.categories, "categories", ex)?,
            masks: owned::copy_opt(self.masks, "masks", ex)?,
        })
    }
}

impl OwnedFilters {
    /// The copies as a search's filters.
    pub fn filters(&self) -> Filters<'_> {
        Filters {
            groups: self.groups.as_deref(),
            categories: self.categories.as_deref(),
            masks: self.masks.as_deref(),
        }
    }

    /// The copies as the tree's per-object values of an insert.
    pub fn attrs(&self) -> Attrs<'_> {
        Attrs {
            groups: self.groups.as_deref(),
            categories: self.categories.as_deref(),
            masks: self.masks.as_deref(),
        }
    }
}
