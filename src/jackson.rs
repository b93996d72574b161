//! TEMPORARY placeholder (being replaced by the Jackson-faithful parser).
#![allow(missing_docs)]
#[derive(Debug, Clone, PartialEq)]
pub enum JValue {
    Null,
    Bool(bool),
    Int(String),
    Double(f64),
    String(String),
    Array(Vec<JValue>),
    Object(Vec<(String, JValue)>),
}
impl JValue {
    pub fn to_serde(&self) -> serde_json::Value {
        match self {
            JValue::Null => serde_json::Value::Null,
            JValue::Bool(b) => (*b).into(),
            JValue::Int(s) => serde_json::from_str(s).unwrap(),
            JValue::Double(d) => serde_json::Number::from_f64(*d)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            JValue::String(s) => s.clone().into(),
            JValue::Array(a) => a.iter().map(|x| x.to_serde()).collect(),
            JValue::Object(o) => serde_json::Value::Object(
                o.iter().map(|(k, v)| (k.clone(), v.to_serde())).collect(),
            ),
        }
    }
}
fn from(v: serde_json::Value) -> JValue {
    match v {
        serde_json::Value::Null => JValue::Null,
        serde_json::Value::Bool(b) => JValue::Bool(b),
        serde_json::Value::Number(n) => {
            let s = n.to_string();
            if s.contains(['.', 'e', 'E']) {
                JValue::Double(s.parse().unwrap())
            } else {
                JValue::Int(s)
            }
        }
        serde_json::Value::String(s) => JValue::String(s),
        serde_json::Value::Array(a) => JValue::Array(a.into_iter().map(from).collect()),
        serde_json::Value::Object(o) => {
            JValue::Object(o.into_iter().map(|(k, v)| (k, from(v))).collect())
        }
    }
}
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JacksonError {
    pub class: &'static str,
    pub message: String,
}
pub fn read_lenient(text: &str) -> Result<JValue, JacksonError> {
    let mut it = serde_json::Deserializer::from_str(text).into_iter::<serde_json::Value>();
    match it.next() {
        Some(Ok(v)) => Ok(from(v)),
        _ => Err(JacksonError {
            class: "StreamReadException",
            message: "x".into(),
        }),
    }
}
pub fn read_strict(text: &str) -> Option<JValue> {
    serde_json::from_str(text).ok().map(from)
}
pub fn is_strict_json(text: &str) -> bool {
    read_strict(text).is_some()
}
