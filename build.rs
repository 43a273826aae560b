//! Release builds on x86_64 Linux are linked for a fast start:
//! - as a position-dependent executable (see `link_position_dependent`);
//! - with the functions promptexec runs at start-up next to each other (the list is
//!   `layout/startup.order`, written by `layout/generate`), so that a command touches
//!   a few hundred kilobytes of code instead of pages all over the binary. The option
//!   is lld's, the linker Rust uses by default on x86_64 Linux.
//!
//! Other targets, and builds that name their own linker, link as usual. Every build
//! on glibc also links the unwinder in (see `link_unwinder_statically`).

use std::env;
use std::path::Path;

fn main() {
    link_unwinder_statically();
    println!("cargo::rerun-if-changed=layout/startup.order");
    println!("cargo::rerun-if-env-changed=CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER");
    if env::var("PROFILE").as_deref() != Ok("release")
        || env::var("TARGET").as_deref() != Ok("x86_64-unknown-linux-gnu")
        || names_a_linker()
    {
        return;
    }
    link_position_dependent();
    let order = Path::new(&env::var("CARGO_MANIFEST_DIR").expect("set by cargo"))
        .join("layout")
        .join("startup.order");
    if !order.exists() {
        return;
    }
    println!(
        "cargo::rustc-link-arg-bin=promptexec=-Wl,--symbol-ordering-file={}",
        order.display()
    );
    // The list names symbols of one toolchain and one lock file; those it no longer
    // finds are skipped.
    println!("cargo::rustc-link-arg-bin=promptexec=-Wl,--no-warn-symbol-ordering");
}

/// A position-independent executable is loaded at a random address, so the loader
/// rewrites every pointer in its read-only data at each start: 14,000 of them in
/// 240 KiB, copied page by page. That was 13 % of the process's samples in
/// `invoke-tool` and 60 of its 220 page faults (benches/startup.rs: `--version` took
/// 1.9x `/bin/true` with PIE, 1.55x without). Linked at a fixed address, those pages
/// are read from the file as they are. The stack, heap and shared libraries are still
/// placed at random.
fn link_position_dependent() {
    println!("cargo::rustc-link-arg-bin=promptexec=-no-pie");
}

/// Whether this build chose its linker itself, which may not be lld.
fn names_a_linker() -> bool {
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    env::var_os("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_some()
        || flags
            .split('\x1f')
            .any(|flag| flag.contains("linker") || flag.contains("link-self-contained"))
}

/// On glibc, std's unwinder comes from libgcc_s.so, whose constructor probes the CPU
/// with `cpuid`: slow in a virtual machine, and paid by every start whether or not
/// anything unwinds. The same unwinder linked in from libgcc_eh.a (as a static
/// build does) leaves libgcc_s unloaded.
fn link_unwinder_statically() {
    let linux_gnu = env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if linux_gnu {
        println!("cargo::rustc-link-lib=static:-bundle=gcc_eh");
    }
}
