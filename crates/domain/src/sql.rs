//! Storage encodings (feature `sqlx`): every wire enum and prefixed id is stored as its text,
//! every timestamp as integer microseconds since the Unix epoch, so the same SQL works on
//! SQLite and PostgreSQL and keyset ordering is plain integer ordering.

use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::{Database, Decode, Encode, Type};

macro_rules! stored_as_text {
    ($($ty:ty),+ $(,)?) => {$(
        impl<DB: Database> Type<DB> for $ty where str: Type<DB> {
            fn type_info() -> DB::TypeInfo { <str as Type<DB>>::type_info() }
            fn compatible(ty: &DB::TypeInfo) -> bool { <str as Type<DB>>::compatible(ty) }
        }

        impl<'r, DB: Database> Decode<'r, DB> for $ty where &'r str: Decode<'r, DB> {
            fn decode(value: <DB as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
                let text = <&'r str as Decode<'r, DB>>::decode(value)?;
                Ok(text.parse::<$ty>()?)
            }
        }

        impl<'q, DB: Database> Encode<'q, DB> for $ty where String: Encode<'q, DB> {
            fn encode_by_ref(&self, buf: &mut <DB as Database>::ArgumentBuffer) -> Result<IsNull, BoxDynError> {
                <String as Encode<'q, DB>>::encode(self.to_string(), buf)
            }
        }
    )+};
}

stored_as_text_types!(stored_as_text);

impl<DB: Database> Type<DB> for crate::Timestamp
where
    i64: Type<DB>,
{
    fn type_info() -> DB::TypeInfo {
        <i64 as Type<DB>>::type_info()
    }
    fn compatible(ty: &DB::TypeInfo) -> bool {
        <i64 as Type<DB>>::compatible(ty)
    }
}

impl<'r, DB: Database> Decode<'r, DB> for crate::Timestamp
where
    i64: Decode<'r, DB>,
{
    fn decode(value: <DB as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
        Ok(crate::Timestamp::from_micros(
            <i64 as Decode<'r, DB>>::decode(value)?,
        )?)
    }
}

impl<'q, DB: Database> Encode<'q, DB> for crate::Timestamp
where
    i64: Encode<'q, DB>,
{
    fn encode_by_ref(
        &self,
        buf: &mut <DB as Database>::ArgumentBuffer,
    ) -> Result<IsNull, BoxDynError> {
        <i64 as Encode<'q, DB>>::encode(self.micros(), buf)
    }
}
