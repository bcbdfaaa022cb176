//! The expansion of an array by the loops around its accesses, as the
//! model records it ([`Model::expansions`](super::model::Model::expansions)): which accesses, by how many
//! iterators, over which ranges, and the model of the expanded program
//! ([`expand`]). Whether an array may be expanded is the privatization
//! analysis (`crate::rewrite::privatize`), which needs the dependences.

use super::form::Form;
use super::model::{ArrayId, Model, Scop};

/// One group of accesses to an array, to be expanded into its own buffer.
#[derive(Debug, Clone)]
pub struct Expansion {
    /// The array.
    pub array: ArrayId,
    /// The statements whose accesses to it are expanded (one top-level
    /// loop nest).
    pub stmts: Vec<usize>,
    /// The number of outermost shared loops (iterators) expanded by.
    pub depth: usize,
    /// Per expanded iterator, its smallest value and the number of values.
    pub bounds: Vec<(i64, i64)>,
    /// The array's static shape.
    pub shape: Vec<i64>,
    /// Its element type (`f64`).
    pub elem: String,
    /// For the group that writes the array last: the last iteration of its
    /// expanded loops, whose copy goes back into the array.
    pub last: Option<Vec<i64>>,
}

impl Expansion {
    /// The expanded array's type, `memref<E0x…xS0x…xf64>`.
    pub fn expanded_type(&self) -> String {
        let dims: Vec<String> = self
            .bounds
            .iter()
            .map(|&(_, n)| n.to_string())
            .chain(self.shape.iter().map(i64::to_string))
            .collect();
        format!("memref<{}x{}>", dims.join("x"), self.elem)
    }
}

/// Static shape and element type of a memref type text such as
/// `memref<4x8xf64>`; `None` for dynamic sizes, layouts or memory spaces.
pub fn static_shape(ty: &str) -> Option<(Vec<i64>, String)> {
    let (shape, elem) = memref_shape(ty)?;
    Some((shape.into_iter().collect::<Option<_>>()?, elem))
}

/// Shape (`None` for a dynamic size) and element type of a memref type text
/// such as `memref<?x8xf64>`; `None` for layouts, memory spaces or element
/// types that are not scalars.
pub fn memref_shape(ty: &str) -> Option<(Vec<Option<i64>>, String)> {
    let inner = ty.strip_prefix("memref<")?.strip_suffix('>')?;
    if inner.contains(',') || inner.contains('<') {
        return None;
    }
    let mut parts: Vec<&str> = inner.split('x').collect();
    let elem = parts.pop()?.to_string();
    let shape: Option<Vec<Option<i64>>> = parts
        .iter()
        .map(|p| match *p {
            "?" => Some(None),
            _ => p.parse().ok().map(Some),
        })
        .collect();
    Some((shape?, elem))
}

/// The bytes between neighbours along each dimension of a memref of type
/// `ty` (`memref<4x8xf64>`: 64, 8); `None` for dynamic sizes, layouts or
/// element types of unknown size.
pub fn byte_strides(ty: &str) -> Option<Vec<i64>> {
    let (shape, elem) = static_shape(ty)?;
    let mut strides = vec![0; shape.len()];
    let mut s = element_bytes(&elem)?;
    for (k, &n) in shape.iter().enumerate().rev() {
        strides[k] = s;
        s = s.checked_mul(n)?;
    }
    Some(strides)
}

/// The bytes of a memref of type `ty` (`memref<4x8xf64>`: 256); `None`
/// for dynamic sizes, layouts or element types of unknown size.
pub fn static_bytes(ty: &str) -> Option<i64> {
    let (shape, elem) = static_shape(ty)?;
    shape
        .iter()
        .try_fold(element_bytes(&elem)?, |n, &d| n.checked_mul(d))
}

/// The bytes of one value of the scalar type `ty` (`f64`, `i32`, `index`,
/// `bf16`), `None` for other types.
pub fn element_bytes(ty: &str) -> Option<i64> {
    match ty {
        "index" => Some(8),
        "bf16" => Some(2),
        _ => {
            let bits: i64 = ty.strip_prefix(['f', 'i'])?.parse().ok()?;
            (bits > 0 && bits % 8 == 0).then_some(bits / 8)
        }
    }
}

/// Whether `a` is one of the arrays [`expand`] appended to `model` (one
/// per expansion, after the original arrays).
pub fn is_expanded(model: &Model, a: ArrayId) -> bool {
    a.0 >= model.arrays.len().saturating_sub(model.expansions.len())
}

/// The array [`expand`] appended to `model` for its expansion `x` (an
/// index into [`Model::expansions`]): the one the expanded accesses name,
/// where [`Expansion::array`] is the array they named before.
pub fn expanded_array(model: &Model, x: usize) -> ArrayId {
    ArrayId(model.arrays.len() - model.expansions.len() + x)
}

/// The model of the expanded program: every access to an expanded array
/// gets the expanded iterators (minus their lower bounds) as leading
/// subscripts.
pub fn expand(scop: &Scop, exps: &[Expansion]) -> Result<Scop, crate::math::MathError> {
    let mut out = scop.clone();
    for (g, e) in exps.iter().enumerate() {
        // Each group gets its own array (its own buffer in the rewrite).
        let mut arr = scop.arrays[e.array.0].clone();
        arr.rank += e.depth;
        arr.name = format!("{}_p{g}", arr.name);
        let id = ArrayId(out.arrays.len());
        out.arrays.push(arr);
        for &s in &e.stmts {
            for acc in &mut out.statements[s].accesses {
                if acc.array != e.array {
                    continue;
                }
                let mut index = Vec::with_capacity(e.depth + acc.index.len());
                for &(lo, _) in &e.bounds {
                    let k = index.len();
                    index.push(
                        Form::iter(k)
                            .minus(&Form::constant(lo))
                            .map_err(|_| crate::math::MathError::Overflow)?,
                    );
                }
                index.extend(acc.index.iter().cloned());
                acc.index = index;
                acc.array = id;
            }
        }
    }
    out.expansions = exps.to_vec();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::static_shape;

    #[test]
    fn static_shapes_only() {
        assert_eq!(
            static_shape("memref<4x8xf64>"),
            Some((vec![4, 8], "f64".to_string()))
        );
        assert_eq!(
            static_shape("memref<1xf32>"),
            Some((vec![1], "f32".to_string()))
        );
        assert_eq!(static_shape("memref<?x8xf64>"), None);
        assert_eq!(static_shape("memref<4x8xf64, strided<[8, 1]>>"), None);
        assert_eq!(static_shape("memref<4xf64, 1>"), None);
        assert_eq!(static_shape("tensor<4xf64>"), None);
    }
}
