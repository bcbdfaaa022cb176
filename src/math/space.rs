//! Named spaces: parameters plus one tuple (a set) or two tuples (a map).
//!
//! Column layout used by every constraint row of the module:
//! `[params | in dims | out dims | locals | constant]`. A set has no input
//! tuple, so its dims are the "out" dims. Dimension names are cosmetic
//! (they only matter for printing); two spaces *match* when their
//! parameter lists are equal and their tuples have the same names and
//! arities.

use super::int::{MathError, Result};

/// A named (or anonymous) tuple of dimensions such as `S[i, j]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Tuple {
    /// Tuple name (`S` in `S[i, j]`), if any.
    pub name: Option<String>,
    /// Dimension names; an empty string means unnamed.
    pub dims: Vec<String>,
}

impl Tuple {
    /// Returns a tuple with the given name and dimension names.
    pub fn new(name: Option<&str>, dims: &[&str]) -> Tuple {
        Tuple {
            name: name.map(str::to_string),
            dims: dims.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Returns an anonymous-dimension tuple of arity `n`.
    pub fn anonymous(name: Option<&str>, n: usize) -> Tuple {
        Tuple {
            name: name.map(str::to_string),
            dims: vec![String::new(); n],
        }
    }

    /// Returns the arity.
    pub fn len(&self) -> usize {
        self.dims.len()
    }

    /// Returns whether the tuple has no dimensions.
    pub fn is_empty(&self) -> bool {
        self.dims.is_empty()
    }

    fn same_shape(&self, o: &Tuple) -> bool {
        self.name == o.name && self.dims.len() == o.dims.len()
    }
}

/// Kinds of columns of a constraint row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DimKind {
    /// Symbolic parameters.
    Param,
    /// Input dims of a map.
    In,
    /// Output dims of a map, or the dims of a set.
    Out,
    /// Existentially quantified locals.
    Local,
}

/// Parameters plus a set tuple, or plus an input and an output tuple.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Space {
    /// Parameter names.
    pub params: Vec<String>,
    /// Input tuple; `None` for a set.
    pub input: Option<Tuple>,
    /// Output tuple of a map, or the tuple of a set.
    pub output: Tuple,
}

impl Space {
    /// Returns a set space.
    pub fn set(params: &[&str], tuple: Tuple) -> Space {
        Space {
            params: params.iter().map(|s| s.to_string()).collect(),
            input: None,
            output: tuple,
        }
    }

    /// Returns a map space.
    pub fn map(params: &[&str], input: Tuple, output: Tuple) -> Space {
        Space {
            params: params.iter().map(|s| s.to_string()).collect(),
            input: Some(input),
            output,
        }
    }

    /// Returns whether this is a set space.
    pub fn is_set(&self) -> bool {
        self.input.is_none()
    }

    /// Returns the number of parameters.
    pub fn n_param(&self) -> usize {
        self.params.len()
    }

    /// Returns the number of input dims (0 for a set).
    pub fn n_in(&self) -> usize {
        self.input.as_ref().map_or(0, Tuple::len)
    }

    /// Returns the number of output dims (the set dims for a set).
    pub fn n_out(&self) -> usize {
        self.output.len()
    }

    /// Returns the number of parameter and tuple columns.
    pub fn n_total(&self) -> usize {
        self.n_param() + self.n_in() + self.n_out()
    }

    /// Returns the column offset and count of a kind (locals are not part of a space).
    pub fn range(&self, kind: DimKind) -> Result<(usize, usize)> {
        match kind {
            DimKind::Param => Ok((0, self.n_param())),
            DimKind::In => Ok((self.n_param(), self.n_in())),
            DimKind::Out => Ok((self.n_param() + self.n_in(), self.n_out())),
            DimKind::Local => Err(MathError::Space("locals have no fixed range".into())),
        }
    }

    /// Returns whether the spaces have equal parameters and same-shaped tuples.
    pub fn matches(&self, o: &Space) -> bool {
        self.params == o.params
            && self.output.same_shape(&o.output)
            && match (&self.input, &o.input) {
                (None, None) => true,
                (Some(a), Some(b)) => a.same_shape(b),
                _ => false,
            }
    }

    /// Returns whether the tuples have the same shape (parameters ignored).
    pub fn tuples_match(&self, o: &Space) -> bool {
        let mut a = self.clone();
        a.params = o.params.clone();
        a.matches(o)
    }

    /// Returns the map space with input and output swapped.
    pub fn reverse(&self) -> Result<Space> {
        let input = self.expect_map()?.clone();
        Ok(Space {
            params: self.params.clone(),
            input: Some(self.output.clone()),
            output: input,
        })
    }

    /// Returns the set space of the domain of a map.
    pub fn domain(&self) -> Result<Space> {
        Ok(Space {
            params: self.params.clone(),
            input: None,
            output: self.expect_map()?.clone(),
        })
    }

    /// Returns the set space of the range of a map.
    pub fn range_space(&self) -> Result<Space> {
        self.expect_map()?;
        Ok(Space {
            params: self.params.clone(),
            input: None,
            output: self.output.clone(),
        })
    }

    /// Returns the map space from this set space to `out`'s set tuple.
    pub fn map_to(&self, out: &Space) -> Result<Space> {
        if !self.is_set() || !out.is_set() {
            return Err(MathError::Space("map_to needs two set spaces".into()));
        }
        Ok(Space {
            params: self.params.clone(),
            input: Some(self.output.clone()),
            output: out.output.clone(),
        })
    }

    /// Returns the input tuple or a space error for sets.
    pub fn expect_map(&self) -> Result<&Tuple> {
        self.input
            .as_ref()
            .ok_or_else(|| MathError::Space("expected a map, found a set".into()))
    }
}
