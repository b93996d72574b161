//! The judge (`toolcall-judge`) as a WebAssembly module's raw exports:
//! the host asks for a buffer (`alloc`), writes its JSON there, calls
//! `judge` or `check`, which take the buffer back and return the answer's
//! address and length packed in one `u64` (address in the high 32 bits,
//! length in the low), reads the answer and gives it back (`dealloc`).
//! docs/JUDGE.md describes the exports and the JSON.
//!
//! This crate is the only one of the workspace without
//! `#![forbid(unsafe_code)]`: exporting a function under a fixed name is
//! `#[unsafe(no_mangle)]` in edition 2024, and taking back a buffer the
//! host filled is `Box::from_raw`. It holds nothing else; every rule is in
//! `toolcall-judge`.

/// A buffer of `len` bytes for the host to fill; its address.
#[unsafe(no_mangle)]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    Box::into_raw(vec![0u8; len].into_boxed_slice()).cast::<u8>()
}

/// Gives back a buffer of `len` bytes at `ptr`: one from [`alloc`] that
/// was not passed to [`judge`] or [`check`], or an answer.
///
/// # Safety
///
/// `ptr` and `len` must be those of a buffer this module handed out and
/// not yet took back.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dealloc(ptr: *mut u8, len: usize) {
    // SAFETY: the caller hands back a boxed slice of exactly `len` bytes
    // that this module allocated (`alloc`, `answer`).
    drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) });
}

/// The input buffer back from the host, owned again.
///
/// # Safety
///
/// As [`dealloc`].
unsafe fn take(ptr: *mut u8, len: usize) -> Box<[u8]> {
    // SAFETY: as `dealloc`.
    unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) }
}

/// The answer handed to the host: its address and length in one `u64`.
fn answer(text: String) -> u64 {
    let bytes = text.into_bytes().into_boxed_slice();
    let len = bytes.len() as u64;
    let ptr = Box::into_raw(bytes).cast::<u8>() as usize as u64;
    (ptr << 32) | len
}

/// `toolcall_judge::judge` on the `len` bytes at `ptr` (a buffer from
/// [`alloc`], taken back here); the answer packed as the module's doc says.
///
/// # Safety
///
/// `ptr` and `len` must be a buffer from [`alloc`], not yet taken back.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn judge(ptr: *mut u8, len: usize) -> u64 {
    // SAFETY: the caller passes a buffer from `alloc`.
    let input = unsafe { take(ptr, len) };
    answer(toolcall_judge::judge(&input))
}

/// `toolcall_judge::check` on the `len` bytes at `ptr`, as [`judge`].
///
/// # Safety
///
/// As [`judge`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn check(ptr: *mut u8, len: usize) -> u64 {
    // SAFETY: the caller passes a buffer from `alloc`.
    let input = unsafe { take(ptr, len) };
    answer(toolcall_judge::check(&input))
}
