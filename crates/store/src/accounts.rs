//! The portal's people: users, their memberships, sessions, one-time sign-in links and the
//! sign-in attempt counters every node shares. The rules (expiries, limits, what a hash is
//! of) belong to `operations::accounts`; this module only keeps the rows.

use std::sync::LazyLock;

use domain::{Scope, Timestamp, UserId, WorkspaceId};

use crate::engine::{on_tx, read, write_pool};
use crate::{
    KeysetPage, MembershipRecord, SessionRecord, SignInLinkRecord, Store, StoreError, Tx,
    UserRecord, WorkspaceRecord,
};

const USER_COLUMNS: &str = UserRecord::COLUMNS;
const MEMBERSHIP_COLUMNS: &str = MembershipRecord::COLUMNS;
const SESSION_COLUMNS: &str = SessionRecord::COLUMNS;
const LINK_COLUMNS: &str = SignInLinkRecord::COLUMNS;
const WORKSPACE_COLUMNS: &str = WorkspaceRecord::COLUMNS;

/// A workspace and the role a member holds in it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct MemberWorkspace {
    #[sqlx(flatten)]
    pub workspace: WorkspaceRecord,
    pub role: Scope,
}

/// A member of a workspace: the user, their role, and since when.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Member {
    #[sqlx(flatten)]
    pub user: UserRecord,
    pub role: Scope,
    pub member_since: Timestamp,
}

/// A key's sign-in attempts in its current window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct SignInAttempts {
    pub window_start: Timestamp,
    pub attempts: i64,
}

impl Store {
    pub async fn user(&self, id: UserId) -> Result<Option<UserRecord>, StoreError> {
        static SQL: LazyLock<String> =
            LazyLock::new(|| format!("SELECT {USER_COLUMNS} FROM users WHERE id = $1"));
        if let Some(hot) = self.hot() {
            return hot.one(&SQL, [id], UserRecord::from_sqlite);
        }
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            SQL.as_str()
        ))
        .bind(id)
        .fetch_optional(c)
        .await?))
    }

    /// The user with `email`, which the caller has normalised as it is stored.
    pub async fn user_by_email(&self, email: &str) -> Result<Option<UserRecord>, StoreError> {
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!("SELECT {USER_COLUMNS} FROM users WHERE email = $1")
        ))
        .bind(email)
        .fetch_optional(c)
        .await?))
    }

    /// The session whose id hashes to `hash`, expired or not.
    pub async fn session_by_hash(&self, hash: &[u8]) -> Result<Option<SessionRecord>, StoreError> {
        static SQL: LazyLock<String> =
            LazyLock::new(|| format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE id_hash = $1"));
        if let Some(hot) = self.hot() {
            return hot.one(&SQL, [hash], SessionRecord::from_sqlite);
        }
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            SQL.as_str()
        ))
        .bind(hash)
        .fetch_optional(c)
        .await?))
    }

    /// The user's membership of `workspace`, if any.
    pub async fn membership(
        &self,
        user: UserId,
        workspace: WorkspaceId,
    ) -> Result<Option<MembershipRecord>, StoreError> {
        static SQL: LazyLock<String> = LazyLock::new(|| {
            format!(
                "SELECT {MEMBERSHIP_COLUMNS} FROM memberships
                 WHERE user_id = $1 AND workspace_id = $2"
            )
        });
        if let Some(hot) = self.hot() {
            return hot.one(&SQL, (user, workspace), MembershipRecord::from_sqlite);
        }
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            SQL.as_str()
        ))
        .bind(user)
        .bind(workspace)
        .fetch_optional(c)
        .await?))
    }

    /// The active workspaces `user` is a member of, with their role, newest first; at most
    /// `limit`.
    pub async fn workspaces_of_member(
        &self,
        user: UserId,
        limit: i64,
    ) -> Result<Vec<MemberWorkspace>, StoreError> {
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "SELECT {WORKSPACE_COLUMNS}, role FROM workspaces
                 JOIN (SELECT workspace_id, role FROM memberships WHERE user_id = $1) m
                   ON m.workspace_id = workspaces.id
                 WHERE active
                 ORDER BY created_at DESC, id DESC LIMIT $2"
            )
        ))
        .bind(user)
        .bind(limit)
        .fetch_all(c)
        .await?))
    }

    /// A page of the members of `workspace`, newest membership first (`(since, user id)`
    /// descending; the page's position is of that key).
    pub async fn members(
        &self,
        workspace: WorkspaceId,
        page: &KeysetPage,
    ) -> Result<Vec<Member>, StoreError> {
        let (at, id) = page.bounds();
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "SELECT {USER_COLUMNS}, role, member_since FROM users
                 JOIN (SELECT user_id, role, created_at AS member_since FROM memberships
                       WHERE workspace_id = $1 AND (created_at, user_id) < ($2, $3)) m
                   ON m.user_id = users.id
                 ORDER BY member_since DESC, id DESC LIMIT $4"
            )
        ))
        .bind(workspace)
        .bind(at)
        .bind(id)
        .bind(page.fetch())
        .fetch_all(c)
        .await?))
    }

    /// The sign-in link whose token hashes to `hash`, used or expired ones included.
    pub async fn sign_in_link(&self, hash: &[u8]) -> Result<Option<SignInLinkRecord>, StoreError> {
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!("SELECT {LINK_COLUMNS} FROM sign_in_links WHERE token_hash = $1")
        ))
        .bind(hash)
        .fetch_optional(c)
        .await?))
    }

    /// Notes that the session was seen at `now`, unless a later sighting is recorded already.
    pub async fn touch_session(&self, hash: &[u8], now: Timestamp) -> Result<(), StoreError> {
        write_pool!(self, |c| sqlx::query(
            "UPDATE sessions SET last_seen_at = $2 WHERE id_hash = $1 AND last_seen_at < $2"
        )
        .bind(hash)
        .bind(now)
        .execute(c)
        .await?
        .rows_affected());
        Ok(())
    }

    /// Ends one session; ending it again changes nothing.
    pub async fn delete_session(&self, hash: &[u8]) -> Result<(), StoreError> {
        write_pool!(self, |c| sqlx::query(
            "DELETE FROM sessions WHERE id_hash = $1"
        )
        .bind(hash)
        .execute(c)
        .await?
        .rows_affected());
        Ok(())
    }

    /// Counts one sign-in attempt under `key` at `now`, atomically on every engine and node:
    /// a window that started at or before `ended_by` is over, and this attempt starts a new
    /// one. Returns the window the attempt was counted in.
    pub async fn count_sign_in_attempt(
        &self,
        key: &str,
        now: Timestamp,
        ended_by: Timestamp,
    ) -> Result<SignInAttempts, StoreError> {
        Ok(write_pool!(self, |c| sqlx::query_as(
            "INSERT INTO sign_in_attempts (key, window_start, attempts) VALUES ($1, $2, 1)
             ON CONFLICT (key) DO UPDATE SET
               window_start = CASE WHEN sign_in_attempts.window_start <= $3
                                   THEN excluded.window_start
                                   ELSE sign_in_attempts.window_start END,
               attempts = CASE WHEN sign_in_attempts.window_start <= $3
                               THEN 1
                               ELSE sign_in_attempts.attempts + 1 END
             RETURNING window_start, attempts"
        )
        .bind(key)
        .bind(now)
        .bind(ended_by)
        .fetch_one(c)
        .await?))
    }

    /// Takes back one attempt counted under `key` (it succeeded).
    pub async fn take_back_sign_in_attempt(&self, key: &str) -> Result<(), StoreError> {
        write_pool!(self, |c| sqlx::query(
            "UPDATE sign_in_attempts SET attempts = attempts - 1
             WHERE key = $1 AND attempts > 0"
        )
        .bind(key)
        .execute(c)
        .await?
        .rows_affected());
        Ok(())
    }

    /// Forgets what can no longer matter: sessions past their absolute expiry or idle since
    /// `idle_before`, links past their expiry, attempt windows that started at or before
    /// `windows_ended_by`. Returns how many rows went.
    pub async fn purge_accounts(
        &self,
        now: Timestamp,
        idle_before: Timestamp,
        windows_ended_by: Timestamp,
    ) -> Result<u64, StoreError> {
        let sessions = write_pool!(self, |c| sqlx::query(
            "DELETE FROM sessions WHERE expires_at <= $1 OR last_seen_at < $2"
        )
        .bind(now)
        .bind(idle_before)
        .execute(c)
        .await?
        .rows_affected());
        let links = write_pool!(self, |c| sqlx::query(
            "DELETE FROM sign_in_links WHERE expires_at <= $1"
        )
        .bind(now)
        .execute(c)
        .await?
        .rows_affected());
        let attempts = write_pool!(self, |c| sqlx::query(
            "DELETE FROM sign_in_attempts WHERE window_start <= $1"
        )
        .bind(windows_ended_by)
        .execute(c)
        .await?
        .rows_affected());
        Ok(sessions + links + attempts)
    }
}

impl Tx {
    /// The user with `email`, created when there is none; `platform_admin` makes them a
    /// platform admin (an existing one stays one either way).
    pub async fn put_user(
        &mut self,
        email: &str,
        platform_admin: bool,
        now: Timestamp,
    ) -> Result<UserRecord, StoreError> {
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "INSERT INTO users (id, email, platform_admin, created_at)
                 VALUES ($1, $2, $3, $4)
                 ON CONFLICT (email) DO UPDATE
                   SET platform_admin = users.platform_admin OR excluded.platform_admin
                 RETURNING {USER_COLUMNS}"
            )
        ))
        .bind(UserId::generate())
        .bind(email)
        .bind(platform_admin)
        .bind(now)
        .fetch_one(c)
        .await?))
    }

    /// Gives the user `role` in `workspace`, replacing the role they had there.
    pub async fn put_membership(
        &mut self,
        user: UserId,
        workspace: WorkspaceId,
        role: Scope,
        now: Timestamp,
    ) -> Result<MembershipRecord, StoreError> {
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "INSERT INTO memberships ({MEMBERSHIP_COLUMNS}) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (user_id, workspace_id) DO UPDATE SET role = excluded.role
                 RETURNING {MEMBERSHIP_COLUMNS}"
            )
        ))
        .bind(user)
        .bind(workspace)
        .bind(role)
        .bind(now)
        .fetch_one(c)
        .await?))
    }

    /// Gives the user `role` in `workspace` unless they are a member already: `None` then.
    pub async fn insert_membership(
        &mut self,
        user: UserId,
        workspace: WorkspaceId,
        role: Scope,
        now: Timestamp,
    ) -> Result<Option<MembershipRecord>, StoreError> {
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "INSERT INTO memberships ({MEMBERSHIP_COLUMNS}) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (user_id, workspace_id) DO NOTHING
                 RETURNING {MEMBERSHIP_COLUMNS}"
            )
        ))
        .bind(user)
        .bind(workspace)
        .bind(role)
        .bind(now)
        .fetch_optional(c)
        .await?))
    }

    /// Changes a member's role; false when the user is not a member of `workspace`.
    pub async fn set_membership_role(
        &mut self,
        user: UserId,
        workspace: WorkspaceId,
        role: Scope,
    ) -> Result<bool, StoreError> {
        let changed = on_tx!(self, |c| sqlx::query(
            "UPDATE memberships SET role = $3 WHERE user_id = $1 AND workspace_id = $2"
        )
        .bind(user)
        .bind(workspace)
        .bind(role)
        .execute(c)
        .await?
        .rows_affected());
        Ok(changed > 0)
    }

    /// The member `user` of `workspace`, as this transaction sees it.
    pub async fn member(
        &mut self,
        user: UserId,
        workspace: WorkspaceId,
    ) -> Result<Option<Member>, StoreError> {
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "SELECT {USER_COLUMNS}, role, member_since FROM users
                 JOIN (SELECT user_id, role, created_at AS member_since FROM memberships
                       WHERE workspace_id = $1 AND user_id = $2) m
                   ON m.user_id = users.id"
            )
        ))
        .bind(workspace)
        .bind(user)
        .fetch_optional(c)
        .await?))
    }

    /// How many admins `workspace` has besides `user`. The workspace's row is held until the
    /// transaction ends (see [`Tx::lock_workspace`]), so two admins demoting each other at
    /// once take turns and the second sees the first's change.
    pub async fn other_admins(
        &mut self,
        workspace: WorkspaceId,
        user: UserId,
    ) -> Result<i64, StoreError> {
        self.lock_workspace(workspace).await?;
        Ok(on_tx!(self, |c| {
            sqlx::query_scalar(
            "SELECT COUNT(*) FROM memberships WHERE workspace_id = $1 AND user_id <> $2 AND role = $3"
        )
        .bind(workspace)
        .bind(user)
        .bind(Scope::Admin)
        .fetch_one(c)
        .await?
        }))
    }

    /// Ends the user's membership of `workspace`; false when there was none.
    pub async fn delete_membership(
        &mut self,
        user: UserId,
        workspace: WorkspaceId,
    ) -> Result<bool, StoreError> {
        let deleted = on_tx!(self, |c| sqlx::query(
            "DELETE FROM memberships WHERE user_id = $1 AND workspace_id = $2"
        )
        .bind(user)
        .bind(workspace)
        .execute(c)
        .await?
        .rows_affected());
        Ok(deleted > 0)
    }

    /// Issues a sign-in link for the user; their earlier unused links stop working.
    pub async fn issue_sign_in_link(
        &mut self,
        user: UserId,
        token_hash: &[u8],
        now: Timestamp,
        expires_at: Timestamp,
    ) -> Result<SignInLinkRecord, StoreError> {
        on_tx!(self, |c| sqlx::query(
            "DELETE FROM sign_in_links WHERE user_id = $1 AND used_at IS NULL"
        )
        .bind(user)
        .execute(c)
        .await?
        .rows_affected());
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "INSERT INTO sign_in_links ({LINK_COLUMNS}) VALUES ($1, $2, $3, $4, NULL)
                 RETURNING {LINK_COLUMNS}"
            )
        ))
        .bind(token_hash)
        .bind(user)
        .bind(now)
        .bind(expires_at)
        .fetch_one(c)
        .await
        .map_err(StoreError::from_write)?))
    }

    /// Uses up the link whose token hashes to `hash` if it is unused and unexpired at `now`;
    /// the user it was for. Of two transactions using one link, one gets `None`.
    pub async fn use_sign_in_link(
        &mut self,
        hash: &[u8],
        now: Timestamp,
    ) -> Result<Option<UserId>, StoreError> {
        Ok(on_tx!(self, |c| sqlx::query_scalar(
            "UPDATE sign_in_links SET used_at = $2
             WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
             RETURNING user_id"
        )
        .bind(hash)
        .bind(now)
        .fetch_optional(c)
        .await?))
    }

    /// Replaces the user's password hash.
    pub async fn set_password(
        &mut self,
        user: UserId,
        password_hash: &str,
        now: Timestamp,
    ) -> Result<UserRecord, StoreError> {
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "UPDATE users SET password_hash = $2, password_changed_at = $3 WHERE id = $1
                 RETURNING {USER_COLUMNS}"
            )
        ))
        .bind(user)
        .bind(password_hash)
        .bind(now)
        .fetch_one(c)
        .await?))
    }

    /// Ends every session of the user; how many there were.
    pub async fn delete_sessions_of(&mut self, user: UserId) -> Result<u64, StoreError> {
        Ok(on_tx!(self, |c| sqlx::query(
            "DELETE FROM sessions WHERE user_id = $1"
        )
        .bind(user)
        .execute(c)
        .await?
        .rows_affected()))
    }

    pub async fn insert_session(
        &mut self,
        id_hash: &[u8],
        user: UserId,
        now: Timestamp,
        expires_at: Timestamp,
    ) -> Result<SessionRecord, StoreError> {
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "INSERT INTO sessions ({SESSION_COLUMNS}) VALUES ($1, $2, $3, $3, $4)
                 RETURNING {SESSION_COLUMNS}"
            )
        ))
        .bind(id_hash)
        .bind(user)
        .bind(now)
        .bind(expires_at)
        .fetch_one(c)
        .await
        .map_err(StoreError::from_write)?))
    }
}
