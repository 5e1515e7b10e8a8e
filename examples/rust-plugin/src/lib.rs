//! example.rust-base64: an airlock tool in Rust, with no crates. It encodes
//! its `text` argument (as UTF-8) in base64 (RFC 4648, with padding) and
//! answers with {"base64": ..., "bytes": n} as structured content.
//!
//! Every function the host calls catches panics: unwinding across the C
//! boundary is undefined behaviour, so a panic becomes an internal error.

mod airlock;
mod json_args;

use airlock::{Call, HostApi, PluginCtx, PluginInfo, Status, Str, ToolDef};
use json_args::Member;
use std::os::raw::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

const NAME: &str = "example.rust-base64";
const INPUT_SCHEMA: &str = r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#;
const OUTPUT_SCHEMA: &str = r#"{"type":"object","properties":{"base64":{"type":"string"},"bytes":{"type":"integer"}},"required":["base64","bytes"]}"#;
const ANNOTATIONS: &str = r#"{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}"#;

fn base64(input: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(input.len() / 3 * 4 + 4);
    for chunk in input.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The tool's answer as structured-content JSON, or the message for the model.
fn answer(arguments: &[u8]) -> Result<String, String> {
    match json_args::string_member(arguments, "text")? {
        Member::Text(text) => {
            // base64 needs no JSON escaping.
            Ok(format!(r#"{{"base64":"{}","bytes":{}}}"#, base64(text.as_bytes()), text.len()))
        }
        Member::Missing => Err("argument 'text' is required".to_string()),
        Member::NotString => Err("argument 'text' must be a string".to_string()),
    }
}

/// Host calls this on a worker thread, possibly on several at once (the tool
/// is REENTRANT): it uses nothing but its arguments. `tool_data` is the host
/// table, registered with the tool.
unsafe extern "C" fn base64_call(tool_data: *mut c_void, call: *mut Call, arguments: Str) -> Status {
    let host = &*(tool_data as *const HostApi);
    let outcome = catch_unwind(AssertUnwindSafe(|| answer(arguments.bytes())));
    match (outcome, host.result_set_structured, host.result_set_error) {
        (Ok(Ok(json)), Some(set_structured), _) => set_structured(call, Str::new(&json)),
        (Ok(Err(message)), _, Some(set_error)) => {
            set_error(call, Str::new(&message));
            airlock::STATUS_TOOL_ERROR
        }
        _ => airlock::STATUS_INTERNAL,
    }
}

#[no_mangle]
pub extern "C" fn airlock_plugin_abi_version() -> u32 {
    airlock::ABI_VERSION
}

/// Host calls this once, on the loading thread.
///
/// # Safety
/// `host` and `ctx` are the host's, valid until the plugin is unloaded.
#[no_mangle]
pub unsafe extern "C" fn airlock_plugin_init(host: *const HostApi, ctx: *mut PluginCtx) -> Status {
    let outcome = catch_unwind(AssertUnwindSafe(|| register(host, ctx)));
    outcome.unwrap_or(airlock::STATUS_INTERNAL)
}

unsafe fn register(host_ptr: *const HostApi, ctx: *mut PluginCtx) -> Status {
    if host_ptr.is_null() {
        return airlock::STATUS_INTERNAL;
    }
    let host = &*host_ptr;
    // Every ABI 1.x host's table covers the 1.0 members this plugin binds.
    if (host.struct_size as usize) < std::mem::size_of::<HostApi>() {
        return airlock::STATUS_UNSUPPORTED;
    }
    let (set_plugin_info, register_tool) = match (host.set_plugin_info, host.register_tool) {
        (Some(info), Some(tool)) => (info, tool),
        _ => return airlock::STATUS_UNSUPPORTED,
    };

    let info = PluginInfo {
        struct_size: std::mem::size_of::<PluginInfo>() as u32,
        name: Str::new("example-rust-base64"),
        version: Str::new(env!("CARGO_PKG_VERSION")),
        description: Str::new("a Rust tool with hand-written bindings to airlock.h"),
        plugin_data: std::ptr::null_mut(),
        on_destroy: None,
    };
    let status = set_plugin_info(ctx, &info);
    if status != airlock::STATUS_OK {
        return status;
    }

    let tool = ToolDef {
        struct_size: std::mem::size_of::<ToolDef>() as u32,
        name: Str::new(NAME),
        title: Str::new("Base64"),
        description: Str::new("Encodes the text (as UTF-8) in base64, RFC 4648 with padding."),
        input_schema: Str::new(INPUT_SCHEMA),
        output_schema: Str::new(OUTPUT_SCHEMA),
        annotations: Str::new(ANNOTATIONS),
        flags: airlock::TOOL_REENTRANT,
        tool_data: host_ptr as *mut c_void,
        on_call: Some(base64_call),
    };
    register_tool(ctx, &tool)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        let vectors = [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
                       ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")];
        for (input, expected) in vectors.iter() {
            assert_eq!(base64(input.as_bytes()), *expected);
        }
    }

    #[test]
    fn reads_the_text_member_among_others() {
        let json = br#"{"n":[1,{"a":"}"}],"text":"h\u00e9\ud83d\ude00\n","x":true}"#;
        assert_eq!(answer(json).unwrap(), format!(r#"{{"base64":"{}","bytes":8}}"#, base64("hé😀\n".as_bytes())));
        assert_eq!(answer(br#"{"text":5}"#).unwrap_err(), "argument 'text' must be a string");
        assert_eq!(answer(b"{}").unwrap_err(), "argument 'text' is required");
        assert!(answer(br#"{"text":"open"#).is_err());
    }
}
