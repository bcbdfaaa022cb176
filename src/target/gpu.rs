//! What the GPU mapping may know about an NVIDIA GPU: the chip (the PTX
//! target), streaming multiprocessors, warp size and the per-block limits
//! (threads, shared memory, registers per thread). Values from NVIDIA's
//! CUDA C Programming Guide, "Compute capabilities".

/// An NVIDIA GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuTarget {
    /// The chip as PTX names it (`sm_80`, `sm_90`).
    pub chip: &'static str,
    /// Streaming multiprocessors of the reference part (A100: 108, H100
    /// SXM: 132).
    pub sms: u32,
    /// Threads per warp.
    pub warp: u32,
    /// Most threads per block.
    pub max_threads_per_block: u32,
    /// Shared memory a block may use without opting in, in bytes.
    pub shared_per_block: u32,
    /// Most registers per thread.
    pub registers_per_thread: u32,
}

/// The named GPUs: Ampere (A100) and Hopper (H100).
const PRESETS: &[GpuTarget] = &[
    GpuTarget {
        chip: "sm_80",
        sms: 108,
        warp: 32,
        max_threads_per_block: 1024,
        shared_per_block: 48 * 1024,
        registers_per_thread: 255,
    },
    GpuTarget {
        chip: "sm_90",
        sms: 132,
        warp: 32,
        max_threads_per_block: 1024,
        shared_per_block: 48 * 1024,
        registers_per_thread: 255,
    },
];

impl GpuTarget {
    /// The preset for `chip`, if known.
    pub fn preset(chip: &str) -> Option<GpuTarget> {
        PRESETS.iter().find(|g| g.chip == chip).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_found_by_chip() {
        let h100 = GpuTarget::preset("sm_90").expect("sm_90");
        assert_eq!((h100.sms, h100.warp), (132, 32));
        assert!(GpuTarget::preset("sm_10").is_none());
    }
}
