use serde::{Serialize, de::DeserializeOwned};
use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::{Database, Decode, Encode, Type};

/// A JSON value stored as TEXT on both engines (PostgreSQL's `jsonb` would need a different
/// binding per engine; we never query inside it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JsonText<T>(pub T);

impl<T, DB: Database> Type<DB> for JsonText<T>
where
    str: Type<DB>,
{
    fn type_info() -> DB::TypeInfo {
        <str as Type<DB>>::type_info()
    }
    fn compatible(ty: &DB::TypeInfo) -> bool {
        <str as Type<DB>>::compatible(ty)
    }
}

impl<'r, T: DeserializeOwned, DB: Database> Decode<'r, DB> for JsonText<T>
where
    &'r str: Decode<'r, DB>,
{
    fn decode(value: <DB as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
        let text = <&'r str as Decode<'r, DB>>::decode(value)?;
        Ok(JsonText(serde_json::from_str(text)?))
    }
}

impl<'q, T: Serialize, DB: Database> Encode<'q, DB> for JsonText<T>
where
    String: Encode<'q, DB>,
{
    fn encode_by_ref(
        &self,
        buf: &mut <DB as Database>::ArgumentBuffer,
    ) -> Result<IsNull, BoxDynError> {
        <String as Encode<'q, DB>>::encode(serde_json::to_string(&self.0)?, buf)
    }
}
