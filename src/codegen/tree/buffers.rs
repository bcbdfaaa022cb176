//! Buffers of operands computed ahead, decided: for each register tile
//! (`transform/register_tile.rs`; its first unrolled dimension `u`), the
//! loop over the blocks of its vector loop (`u - 2`) gets the operands of
//! the loop inside the tile (`u - 1`) that do not change from block to
//! block computed once before it (`hoist`,
//! [`HoistMark`]), and the loop over the
//! blocks' rows (`u - 3`) gets those that do not change from row to row
//! packed once before it (`pack`,
//! [`PackMark`], with the target's
//! registers for the loops that fill the buffer). The buffers' depth is
//! each statement's tile size of the loop inside the tile
//! ([`Tree::register_sizes`]).
//!
//! The printer (`emit/hoist.rs`) finds the operands on the statements'
//! operations and builds a buffer only where they have the shape it
//! needs (the same tile size, subscripts free of the block's loops).

use super::{each_loop, Note, TreeCx};
use crate::codegen::ast::{HoistMark, PackMark, Tree};

/// Marks the loops over blocks and over block rows of the register tiles.
pub fn run(tree: &mut Tree, cx: &TreeCx) -> Note {
    let tiles = cx.register_tiles;
    tree.register_sizes = cx.register_sizes.to_vec();
    let hoist = |dim: usize| {
        tiles
            .iter()
            .find(|t| t.vector_blocks() == Some(dim))
            .and_then(|t| t.inner())
            .map(|inner| HoistMark { inner })
    };
    let pack = |dim: usize| {
        tiles
            .iter()
            .find(|t| t.row_blocks() == Some(dim))
            .map(|t| PackMark {
                blocks: t.first - 2,
                inner: t.first - 1,
                fill: cx.fill,
            })
    };
    let loops = each_loop(&mut tree.root, &mut |dim, strided, _, marks, _| {
        if strided {
            return false;
        }
        marks.hoist = hoist(dim).filter(|_| cx.hoist);
        marks.pack = pack(dim).filter(|_| cx.pack);
        marks.hoist.is_some() || marks.pack.is_some()
    });
    Note { loops }
}

#[cfg(test)]
mod tests {
    use super::run;
    use crate::codegen::ast::{HoistMark, PackMark};
    use crate::codegen::tree::build::{loops, par, seq, stmt, tree};
    use crate::codegen::tree::{test_cx, TreeCx};
    use crate::transform::RegisterTile;

    /// A register tile of 4x8 blocks whose first unrolled loop is `first`.
    fn register_tile(first: usize) -> RegisterTile {
        RegisterTile {
            first,
            rows: 4,
            columns: 8,
        }
    }

    /// A register tile with its first unrolled loop at t4: block rows t1,
    /// blocks of the vector loop t2, the loop inside the tile t3.
    fn tile() -> crate::codegen::ast::Tree {
        tree(seq(0, par(1, seq(2, seq(3, stmt(0))))), 1)
    }

    #[test]
    fn tiles_mark_block_rows_for_packing_and_blocks_for_hoisting() {
        let mut t = tile();
        let cx = TreeCx {
            register_tiles: &[register_tile(4)],
            register_sizes: &[64],
            hoist: true,
            pack: true,
            ..test_cx()
        };
        assert_eq!(run(&mut t, &cx).loops, 2);
        let l = loops(&t);
        // Packing on the (parallel) block rows, with the target's fill.
        assert_eq!(
            l[1].2.pack,
            Some(PackMark {
                blocks: 2,
                inner: 3,
                fill: cx.fill
            })
        );
        assert_eq!(l[1].2.hoist, None);
        assert_eq!(l[2].2.hoist, Some(HoistMark { inner: 3 }));
        assert_eq!(l[2].2.pack, None);
        assert!(l[0].2.pack.is_none() && l[3].2.hoist.is_none());
        assert_eq!(t.register_sizes, vec![64]);
    }

    #[test]
    fn the_options_turn_each_buffer_off() {
        let mut t = tile();
        let cx = TreeCx {
            register_tiles: &[register_tile(4)],
            register_sizes: &[64],
            hoist: true,
            ..test_cx()
        };
        assert_eq!(run(&mut t, &cx).loops, 1);
        assert!(loops(&t).iter().all(|(_, _, m)| m.pack.is_none()));
        let mut t = tile();
        let cx = TreeCx {
            register_tiles: &[register_tile(4)],
            ..test_cx()
        };
        assert_eq!(run(&mut t, &cx).loops, 0);
    }

    #[test]
    fn a_tile_too_shallow_for_rows_is_only_hoisted() {
        // First unrolled dimension 2: blocks t0, no loop of block rows.
        let mut t = tile();
        let cx = TreeCx {
            register_tiles: &[register_tile(2)],
            hoist: true,
            pack: true,
            ..test_cx()
        };
        run(&mut t, &cx);
        let l = loops(&t);
        assert_eq!(l[0].2.hoist, Some(HoistMark { inner: 1 }));
        assert!(l.iter().all(|(_, _, m)| m.pack.is_none()));
    }
}
