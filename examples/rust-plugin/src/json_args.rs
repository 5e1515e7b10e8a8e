//! Reading one string member of a tool's arguments: the host hands on_call
//! valid JSON, always an object, but a plugin without a JSON crate still
//! checks every step and says what it could not read.

pub enum Member {
    Missing,
    NotString,
    Text(String),
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

const MAX_DEPTH: u32 = 64;

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while let Some(b' ') | Some(b'\t') | Some(b'\n') | Some(b'\r') = self.peek() {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        self.skip_space();
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected '{}' at byte {} of the arguments", byte as char, self.at))
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self.bytes.get(self.at..self.at + 4).ok_or("a \\u escape is cut short")?;
        let text = std::str::from_utf8(digits).map_err(|_| "a \\u escape is not hex")?;
        let value = u32::from_str_radix(text, 16).map_err(|_| "a \\u escape is not hex")?;
        self.at += 4;
        Ok(value)
    }

    /// A string, decoded; the reader is on its opening quote.
    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let byte = self.peek().ok_or("a string is not closed")?;
            self.at += 1;
            match byte {
                b'"' => break,
                b'\\' => {
                    let escape = self.peek().ok_or("a string is not closed")?;
                    self.at += 1;
                    let decoded: char = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return Err(format!("unknown escape '\\{}' in a string", escape as char)),
                    };
                    let mut buffer = [0u8; 4];
                    out.extend_from_slice(decoded.encode_utf8(&mut buffer).as_bytes());
                }
                0x00..=0x1f => return Err("a control character inside a string".to_string()),
                _ => out.push(byte),
            }
        }
        String::from_utf8(out).map_err(|_| "a string is not valid UTF-8".to_string())
    }

    /// After "\u": one code point; a surrogate pair is one, a lone
    /// surrogate becomes U+FFFD.
    fn unicode_escape(&mut self) -> Result<char, String> {
        let high = self.hex4()?;
        if (0xD800..0xDC00).contains(&high) && self.bytes.get(self.at..self.at + 2) == Some(&b"\\u"[..]) {
            let saved = self.at;
            self.at += 2;
            let low = self.hex4()?;
            if (0xDC00..0xE000).contains(&low) {
                let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                return Ok(char::from_u32(code).unwrap_or('\u{FFFD}'));
            }
            self.at = saved;
        }
        Ok(char::from_u32(high).unwrap_or('\u{FFFD}'))
    }

    fn skip_value(&mut self, depth: u32) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err("the arguments nest too deeply".to_string());
        }
        self.skip_space();
        match self.peek() {
            Some(b'"') => self.string().map(|_| ()),
            Some(open @ b'{') | Some(open @ b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                self.at += 1;
                self.skip_space();
                if self.peek() == Some(close) {
                    self.at += 1;
                    return Ok(());
                }
                loop {
                    if open == b'{' {
                        self.skip_space();
                        self.string()?;
                        self.expect(b':')?;
                    }
                    self.skip_value(depth + 1)?;
                    self.skip_space();
                    match self.peek() {
                        Some(b',') => self.at += 1,
                        Some(byte) if byte == close => {
                            self.at += 1;
                            return Ok(());
                        }
                        _ => return Err(format!("expected ',' or '{}' at byte {}", close as char, self.at)),
                    }
                }
            }
            Some(_) => {
                // A number or a literal: the characters they are made of.
                let start = self.at;
                while let Some(byte) = self.peek() {
                    if !b"0123456789+-.eEtruefalsn".contains(&byte) {
                        break;
                    }
                    self.at += 1;
                }
                if self.at > start {
                    Ok(())
                } else {
                    Err(format!("unexpected byte at {} of the arguments", self.at))
                }
            }
            None => Err("the arguments end early".to_string()),
        }
    }
}

/// The top-level member `name` of the JSON object `json`.
pub fn string_member(json: &[u8], name: &str) -> Result<Member, String> {
    let mut reader = Reader { bytes: json, at: 0 };
    reader.expect(b'{')?;
    reader.skip_space();
    if reader.peek() == Some(b'}') {
        return Ok(Member::Missing);
    }
    loop {
        reader.skip_space();
        let key = reader.string()?;
        reader.expect(b':')?;
        reader.skip_space();
        if key == name {
            if reader.peek() != Some(b'"') {
                return Ok(Member::NotString);
            }
            return reader.string().map(Member::Text);
        }
        reader.skip_value(1)?;
        reader.skip_space();
        match reader.peek() {
            Some(b',') => reader.at += 1,
            Some(b'}') => return Ok(Member::Missing),
            _ => return Err(format!("expected ',' or '}}' at byte {} of the arguments", reader.at)),
        }
    }
}
