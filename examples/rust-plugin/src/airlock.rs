//! Hand-written bindings to airlock.h, ABI 1.4: the types a tool plugin
//! passes, laid out member for member as the C header declares them
//! (#[repr(C)], the same order, the same widths), and the host table up to
//! the last member this plugin calls.
//!
//! Ownership, as airlock.h states it: every `Str` the host hands over is
//! borrowed for the duration of the call that hands it over; everything the
//! plugin passes to the host is copied before the host function returns.
//! Nothing is ever freed across the boundary.

use std::marker::PhantomData;
use std::os::raw::{c_char, c_void};

pub const ABI_VERSION_MAJOR: u32 = 1;
pub const ABI_VERSION_MINOR: u32 = 4;
/// (major << 16) | minor, what airlock_plugin_abi_version() returns.
pub const ABI_VERSION: u32 = ABI_VERSION_MAJOR * 65536 + ABI_VERSION_MINOR;

pub type Status = i32;
pub const STATUS_OK: Status = 0;
pub const STATUS_TOOL_ERROR: Status = 2;
pub const STATUS_INTERNAL: Status = 6;
pub const STATUS_UNSUPPORTED: Status = 7;

/// The tool may run on several threads at once.
pub const TOOL_REENTRANT: u32 = 1;

/// airlock_str: UTF-8 bytes, not NUL-terminated; {NULL, 0} is "".
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Str {
    pub ptr: *const c_char,
    pub len: usize,
}

impl Str {
    /// Borrows `text` for as long as the host call it is passed to.
    pub fn new(text: &str) -> Str {
        Str { ptr: text.as_ptr() as *const c_char, len: text.len() }
    }

    /// The bytes, for as long as the host lends them.
    ///
    /// # Safety
    /// `self` must come from the host and the call it came with must still run.
    pub unsafe fn bytes<'a>(self) -> &'a [u8] {
        if self.ptr.is_null() || self.len == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(self.ptr as *const u8, self.len)
        }
    }
}

// Opaque handles, owned by the host: only ever behind a pointer.
#[repr(C)]
pub struct PluginCtx {
    _opaque: [u8; 0],
    _not_send: PhantomData<*mut u8>,
}
#[repr(C)]
pub struct Call {
    _opaque: [u8; 0],
    _not_send: PhantomData<*mut u8>,
}
#[repr(C)]
pub struct TextWriter {
    _opaque: [u8; 0],
    _not_send: PhantomData<*mut u8>,
}
#[repr(C)]
pub struct ResultWriter {
    _opaque: [u8; 0],
    _not_send: PhantomData<*mut u8>,
}

/// airlock_plugin_info
#[repr(C)]
pub struct PluginInfo {
    pub struct_size: u32,
    pub name: Str,
    pub version: Str,
    pub description: Str,
    pub plugin_data: *mut c_void,
    pub on_destroy: Option<unsafe extern "C" fn(plugin_data: *mut c_void)>,
}

/// airlock_on_call_fn
pub type OnCall = unsafe extern "C" fn(tool_data: *mut c_void, call: *mut Call, arguments: Str) -> Status;

/// airlock_tool_def
#[repr(C)]
pub struct ToolDef {
    pub struct_size: u32,
    pub name: Str,
    pub title: Str,
    pub description: Str,
    pub input_schema: Str,
    pub output_schema: Str,
    pub annotations: Str,
    pub flags: u32,
    pub tool_data: *mut c_void,
    pub on_call: Option<OnCall>,
}

/// airlock_request_context (borrowed for a result sanitizer's call)
#[repr(C)]
pub struct RequestContext {
    pub struct_size: u32,
    pub protocol_version: Str,
    pub session_id: Str,
    pub caller: Str,
    pub request_id: Str,
}

/// airlock_on_text_fn
pub type OnText = unsafe extern "C" fn(sanitizer_data: *mut c_void, text: Str, out: *mut TextWriter) -> Status;
/// airlock_on_result_fn
pub type OnResult = unsafe extern "C" fn(
    sanitizer_data: *mut c_void,
    context: *const RequestContext,
    tool_name: Str,
    arguments: Str,
    result: Str,
    out: *mut ResultWriter,
) -> Status;

/// airlock_sanitizer_def
#[repr(C)]
pub struct SanitizerDef {
    pub struct_size: u32,
    pub name: Str,
    pub description: Str,
    pub sanitizer_data: *mut c_void,
    pub on_text: Option<OnText>,
    pub on_result: Option<OnResult>,
}

/// airlock_host_api, the members of ABI 1.0. The host's table is longer
/// (ABI 1.1 to 1.4 append to it); this plugin reads none of the later
/// members, and only ever holds a reference to the host's own table, so the
/// prefix is all it needs. `struct_size` says how much of it the host has.
#[repr(C)]
pub struct HostApi {
    pub struct_size: u32,
    pub abi_version: u32,
    // Init: only inside airlock_plugin_init.
    pub set_plugin_info: Option<unsafe extern "C" fn(ctx: *mut PluginCtx, info: *const PluginInfo) -> Status>,
    pub get_config: Option<unsafe extern "C" fn(ctx: *mut PluginCtx) -> Str>,
    pub register_tool: Option<unsafe extern "C" fn(ctx: *mut PluginCtx, def: *const ToolDef) -> Status>,
    pub register_sanitizer: Option<unsafe extern "C" fn(ctx: *mut PluginCtx, def: *const SanitizerDef) -> Status>,
    pub set_init_error: Option<unsafe extern "C" fn(ctx: *mut PluginCtx, message: Str)>,
    // Any time, any thread.
    pub log: Option<unsafe extern "C" fn(ctx: *mut PluginCtx, level: i32, message: Str)>,
    // Calls: only inside on_call, on its thread.
    pub result_set_structured: Option<unsafe extern "C" fn(call: *mut Call, json_object: Str) -> Status>,
    pub result_add_text: Option<unsafe extern "C" fn(call: *mut Call, text: Str) -> Status>,
    pub result_set_json: Option<unsafe extern "C" fn(call: *mut Call, json_object: Str) -> Status>,
    pub result_set_error: Option<unsafe extern "C" fn(call: *mut Call, message: Str) -> Status>,
    pub is_cancelled: Option<unsafe extern "C" fn(call: *const Call) -> i32>,
    // Sanitizer output: only inside the hook that received the writer.
    pub text_write: Option<unsafe extern "C" fn(out: *mut TextWriter, piece: Str) -> Status>,
    pub result_write: Option<unsafe extern "C" fn(out: *mut ResultWriter, json_object: Str) -> Status>,
}

// The sizes a C compiler gives these structs on a 64-bit target (LP64):
// a member out of place fails the build, not a call.
#[cfg(target_pointer_width = "64")]
const _: () = {
    assert!(std::mem::size_of::<Str>() == 16);
    assert!(std::mem::size_of::<PluginInfo>() == 72);
    assert!(std::mem::size_of::<ToolDef>() == 128);
    assert!(std::mem::size_of::<RequestContext>() == 72);
    assert!(std::mem::size_of::<SanitizerDef>() == 64);
    assert!(std::mem::size_of::<HostApi>() == 112);
};
