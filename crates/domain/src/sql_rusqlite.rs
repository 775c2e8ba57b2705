//! The same storage encodings as `sql.rs`, for rusqlite (feature `rusqlite`): the store reads
//! the hottest rows with rusqlite on SQLite (see `store::hot`), and must decode them exactly as
//! sqlx does.

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

macro_rules! stored_as_text {
    ($($ty:ty),+ $(,)?) => {$(
        impl FromSql for $ty {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
                value.as_str()?.parse::<$ty>().map_err(|e| FromSqlError::Other(Box::new(e)))
            }
        }

        impl ToSql for $ty {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(self.to_string()))
            }
        }
    )+};
}

stored_as_text_types!(stored_as_text);

impl FromSql for crate::Timestamp {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        crate::Timestamp::from_micros(value.as_i64()?).map_err(|e| FromSqlError::Other(Box::new(e)))
    }
}

impl ToSql for crate::Timestamp {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.micros()))
    }
}
