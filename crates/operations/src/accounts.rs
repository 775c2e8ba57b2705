//! People in the portal: users with a password (argon2id), their role per workspace, one-time
//! sign-in links, password sign-in throttled per account and per client address, and
//! sessions. The portal calls these; the CLI creates users and reset links.
//!
//! Secrets (a session id, a link token) are 256 random bits, handed out once as unpadded
//! base64url text; only their SHA-256 is stored, so a copy of the database signs nobody in.
//! A session's CSRF token is an HMAC of its id under a key derived from the server key, so
//! nothing more is stored for it.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use argon2::{Algorithm, Argon2, Params, PasswordHasher, PasswordVerifier, Version};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use domain::{Scope, Secret, Timestamp, UserId, WorkspaceId};
use sha2::{Digest, Sha256};
use store::{KeysetPage, Tx, UserRecord, WorkspaceRecord};
use subtle::ConstantTimeEq;
use tokio::sync::{OnceCell, Semaphore};

use crate::error::{Error, Result};
use crate::{Caller, Operations, ensure_active};

/// argon2id with OWASP's Password Storage Cheat Sheet's first listed configuration: 19 MiB of
/// memory (m = 19456 KiB), 2 passes (t = 2), 1 lane (p = 1). Each hash is a PHC string that
/// carries its own parameters, so raising these later keeps earlier hashes verifiable.
const ARGON2_PARAMS: Params = match Params::new(19 * 1024, 2, 1, None) {
    Ok(params) => params,
    Err(_) => panic!("the argon2 parameters are out of range"),
};
/// NIST SP 800-63B: at least 8 characters, and 15 for a password used alone; OWASP's ASVS asks
/// for 12. Characters are Unicode code points; no composition rules.
pub const MIN_PASSWORD_CHARS: usize = 12;
/// Bounds the work of one hash before it starts; long enough for any passphrase (NIST asks
/// that at least 64 characters be accepted).
pub const MAX_PASSWORD_BYTES: usize = 1024;
/// RFC 5321's longest usable address (a 256-octet path, less its angle brackets).
const MAX_EMAIL_CHARS: usize = 254;
/// How long a sign-in link works.
pub const SIGN_IN_LINK_VALIDITY: Duration = Duration::from_secs(24 * 3600);
/// A session's `last_seen_at` is written at most this often, so a page view is not a write.
/// The idle expiry is therefore exact to within this much.
const TOUCH_EVERY: Duration = Duration::from_secs(60);
/// Sign-in attempts are counted in a fixed window that opens with the first attempt of a key
/// and lasts this long; a refused attempt's `Retry-After` is the rest of the window.
pub const THROTTLE_WINDOW: Duration = Duration::from_secs(15 * 60);
/// Attempts one email may make per window (unknown emails too, so that throttling says
/// nothing about which accounts exist).
pub const ATTEMPTS_PER_ACCOUNT: i64 = 5;
/// Attempts one client address (an IPv6 /64) may make per window, across emails.
pub const ATTEMPTS_PER_ADDRESS: i64 = 20;
/// The purpose of the key CSRF tokens are signed with (see `webhooks::derive_key`).
const CSRF_KEY_PURPOSE: &str = "portal-csrf-v1";
/// The most workspaces a list of this module returns.
const MAX_LISTED: i64 = 1_000;
/// The longest a configured session duration may be, so that expiry times stay in range.
const MAX_SESSION_DURATION: Duration = Duration::from_secs(366 * 24 * 3600);
/// The one answer to a wrong password and to an unknown email.
const WRONG_CREDENTIALS: &str = "The email or password is not right.";

/// How long sessions last (part of [`crate::Settings`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionSettings {
    /// A session unused this long ends.
    pub idle_timeout: Duration,
    /// A session ends this long after it started, however busy.
    pub lifetime: Duration,
}

impl Default for SessionSettings {
    /// OWASP's Session Management Cheat Sheet suggests short idle timeouts for sensitive
    /// applications; a portal where a day's work happens gets a working day idle and a week
    /// in all.
    fn default() -> Self {
        Self {
            idle_timeout: Duration::from_secs(8 * 3600),
            lifetime: Duration::from_secs(7 * 24 * 3600),
        }
    }
}

/// What the accounts keep between calls.
pub(crate) struct Accounts {
    sessions: SessionSettings,
    /// Signs CSRF tokens.
    csrf_key: Secret<[u8; 32]>,
    /// Password hashes computed at once: each takes a core and 19 MiB for a while, so a flood
    /// of sign-ins waits here instead of taking every core from the rest of the service.
    hashing: Arc<Semaphore>,
    /// What the password of an unknown email is checked against, so that it takes as long as
    /// a known one's. Made on first use.
    dummy_hash: OnceCell<String>,
}

impl Accounts {
    pub(crate) fn new(server_key: &[u8; 32], sessions: SessionSettings) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        Self {
            sessions: SessionSettings {
                idle_timeout: sessions.idle_timeout.min(MAX_SESSION_DURATION),
                lifetime: sessions.lifetime.min(MAX_SESSION_DURATION),
            },
            csrf_key: Secret::new(::webhooks::derive_key(server_key, CSRF_KEY_PURPOSE)),
            // Half the cores, at least one: the other half keeps serving pages and the API.
            hashing: Arc::new(Semaphore::new((cores / 2).max(1))),
            dummy_hash: OnceCell::new(),
        }
    }

    /// Runs `work` on the blocking pool once a hashing slot is free; the slot stays taken
    /// until `work` ends, even when the caller stops waiting.
    async fn hashing<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T> {
        let slot = Arc::clone(&self.hashing)
            .acquire_owned()
            .await
            .map_err(Error::internal)?;
        tokio::task::spawn_blocking(move || {
            let value = work();
            drop(slot);
            value
        })
        .await
        .map_err(Error::internal)
    }

    /// An argon2id PHC string of `password` with a fresh 128-bit salt.
    async fn hash_password(&self, password: &str) -> Result<String> {
        let password = password.to_owned();
        self.hashing(move || {
            let mut salt = [0u8; 16];
            rand::fill(&mut salt);
            argon2()
                .hash_password_with_salt(password.as_bytes(), &salt)
                .map(|hash| hash.to_string())
        })
        .await?
        .map_err(|e| Error::internal(format!("hashing a password: {e}")))
    }

    /// Whether `password` matches `stored`; with no stored hash (an unknown email, a user
    /// who never set a password) it is checked against the dummy hash, as long, and false.
    async fn verify_password(&self, password: &str, stored: Option<String>) -> Result<bool> {
        let dummy = self
            .dummy_hash
            .get_or_try_init(|| async {
                let (unguessable, _) = new_secret();
                self.hash_password(&unguessable).await
            })
            .await?;
        let real = stored.is_some();
        let hash = stored.unwrap_or_else(|| dummy.clone());
        let password = password.to_owned();
        // The comparison of the outputs inside argon2's verifier is constant-time.
        let verified = self
            .hashing(move || argon2().verify_password(password.as_bytes(), hash.as_str()))
            .await?;
        match verified {
            Ok(()) => Ok(real),
            Err(argon2::password_hash::Error::PasswordInvalid) => Ok(false),
            Err(e) => {
                tracing::error!(error = %e, "a stored password hash cannot be read");
                Ok(false)
            }
        }
    }

    /// The CSRF token of the session whose cookie is `cookie` (checked to be one of ours: its
    /// text and the session id are one-to-one): HMAC-SHA256 of it under the CSRF key.
    fn csrf_token(&self, cookie: &str) -> String {
        URL_SAFE_NO_PAD.encode(::webhooks::derive_key(self.csrf_key.expose(), cookie))
    }
}

fn argon2() -> Argon2<'static> {
    Argon2::new(Algorithm::Argon2id, Version::V0x13, ARGON2_PARAMS)
}

/// A fresh secret: its text (given out once) and its SHA-256 (stored).
/// 256 random bits as unpadded base64url text (43 characters), not kept anywhere: the
/// portal's pre-session CSRF token, which only has to match its own cookie.
pub fn random_token() -> String {
    new_secret().0
}

fn new_secret() -> (String, [u8; 32]) {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes);
    (URL_SAFE_NO_PAD.encode(bytes), Sha256::digest(bytes).into())
}

/// The SHA-256 of a presented secret, or `None` when the text is not shaped like one of ours:
/// checked before any database access. The decoder refuses non-canonical text, so each
/// secret has one text.
fn presented_secret(text: &str) -> Option<[u8; 32]> {
    // 32 bytes are 43 characters of unpadded base64.
    if text.len() != 43 {
        return None;
    }
    let bytes: [u8; 32] = URL_SAFE_NO_PAD.decode(text).ok()?.try_into().ok()?;
    Some(Sha256::digest(bytes).into())
}

/// An email as it is stored and compared: trimmed and lowercased, with one `@` between
/// non-empty parts, no spaces or control characters, at most 254 characters.
pub fn normalize_email(email: &str) -> Result<String> {
    let email = email.trim();
    let invalid = || {
        Error::validation(
            "email",
            "Enter an email address such as name@example.com (at most 254 characters).",
        )
    };
    if email.chars().count() > MAX_EMAIL_CHARS
        || email.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(invalid());
    }
    match email.split_once('@') {
        Some((local, domain))
            if !local.is_empty() && !domain.is_empty() && !domain.contains('@') =>
        {
            Ok(email.to_lowercase())
        }
        _ => Err(invalid()),
    }
}

/// A password short enough to hash (any password presented).
fn bounded_password(password: &str) -> Result<()> {
    if password.len() > MAX_PASSWORD_BYTES {
        return Err(Error::validation(
            "password",
            format!("The password must be at most {MAX_PASSWORD_BYTES} bytes long."),
        ));
    }
    Ok(())
}

/// A password acceptable as a new one.
fn check_new_password(password: &str) -> Result<()> {
    bounded_password(password)?;
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(Error::validation(
            "password",
            format!("The password must be at least {MIN_PASSWORD_CHARS} characters long."),
        ));
    }
    Ok(())
}

/// The throttling key of a client address: an IPv4 address, or an IPv6 address's /64 (one
/// host commonly holds a whole /64). An IPv4-mapped IPv6 address is its IPv4 address.
fn address_key(client: IpAddr) -> String {
    match client {
        IpAddr::V4(v4) => format!("addr:{v4}"),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => format!("addr:{v4}"),
            None => {
                let s = v6.segments();
                format!("addr:{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

/// "15 minutes", "1 minute", "40 seconds": when to retry, for a person.
fn wait_in_words(wait: Duration) -> String {
    let secs = wait.as_secs().max(1);
    match secs {
        1 => "1 second".into(),
        2..=59 => format!("{secs} seconds"),
        _ => match secs.div_ceil(60) {
            1 => "1 minute".into(),
            minutes => format!("{minutes} minutes"),
        },
    }
}

/// The error of a sign-in link that cannot be used.
fn unusable_link() -> Error {
    Error::unauthenticated(
        "This sign-in link does not work: it has expired, has been used, or a newer link \
         replaced it. Ask an administrator for a new one.",
    )
}

/// A person, as the portal shows them.
#[derive(Clone, Debug)]
pub struct User {
    pub id: UserId,
    /// Lowercased.
    pub email: String,
    pub platform_admin: bool,
}

impl User {
    /// The platform's caller, for a platform admin: creating workspaces and seeing them all.
    pub fn platform_caller(&self) -> Result<Caller> {
        if !self.platform_admin {
            return Err(Error::new(
                crate::ErrorKind::InsufficientScope { challenge: None },
                "Only a platform admin may do this.",
            ));
        }
        Ok(Caller {
            user_id: Some(self.id),
            ..Caller::operator()
        })
    }
}

impl From<UserRecord> for User {
    fn from(r: UserRecord) -> Self {
        Self {
            id: r.id,
            email: r.email,
            platform_admin: r.platform_admin,
        }
    }
}

/// Who to create (`content-pipeline users create`).
#[derive(Clone, Debug)]
pub struct NewUser {
    pub email: String,
    pub platform_admin: bool,
    /// A role in one workspace.
    pub membership: Option<(WorkspaceId, Scope)>,
}

/// A one-time link that lets its holder set the user's password; valid 24 h.
#[derive(Clone, Debug)]
pub struct SignInLink {
    pub user: User,
    /// `{base_url}/portal/password?token=…`
    pub url: String,
    pub expires_at: Timestamp,
}

/// A signed-in session, as found from its cookie.
#[derive(Clone, Debug)]
pub struct Session {
    pub user: User,
    /// Put in every form and checked on every state-changing request.
    pub csrf_token: String,
    /// When the session ends however busy (a cookie's `Expires`); it ends earlier when idle.
    pub expires_at: Timestamp,
}

impl Session {
    /// Whether `presented` is this session's CSRF token, compared in constant time.
    pub fn csrf_matches(&self, presented: &str) -> bool {
        presented
            .as_bytes()
            .ct_eq(self.csrf_token.as_bytes())
            .into()
    }
}

/// A session just started: `cookie` is the value to set (the only copy of the session id).
#[derive(Clone, Debug)]
pub struct StartedSession {
    pub cookie: String,
    pub session: Session,
}

/// A member of a workspace, as its settings page lists them.
#[derive(Clone, Debug)]
pub struct Member {
    pub user: User,
    pub role: Scope,
    pub since: Timestamp,
}

impl From<store::Member> for Member {
    fn from(m: store::Member) -> Self {
        Self {
            user: m.user.into(),
            role: m.role,
            since: m.member_since,
        }
    }
}

/// A role `caller` may give: never above their own.
fn within_own_role(caller: &Caller, role: Scope) -> Result<()> {
    if caller.scope.includes(role) {
        Ok(())
    } else {
        Err(Error::validation(
            "role",
            format!(
                "role must not be above your own ('{}'): nobody gives more than they have.",
                caller.scope
            ),
        ))
    }
}

/// A session about to be stored: its cookie, what is stored of it, and its absolute expiry.
struct NewSession {
    cookie: String,
    hash: [u8; 32],
    expires_at: Timestamp,
}

impl Operations {
    /// Creates a user (or, for an existing email, adds the membership and the platform role)
    /// and a sign-in link for them. The workspace of a membership must exist and be active.
    pub async fn create_user(&self, new: NewUser) -> Result<SignInLink> {
        let email = normalize_email(&new.email)?;
        if let Some((ws, _)) = new.membership {
            self.active_workspace(&Caller::operator(), ws, Scope::Admin)
                .await?;
        }
        let (token, token_hash) = new_secret();
        let now = self.clock.timestamp();
        let expires_at = now.plus(SIGN_IN_LINK_VALIDITY);
        let user = self
            .store
            .write(move |tx| {
                Box::pin(async move {
                    let user = tx.put_user(&email, new.platform_admin, now).await?;
                    if let Some((ws, role)) = new.membership {
                        tx.put_membership(user.id, ws, role, now).await?;
                    }
                    tx.issue_sign_in_link(user.id, &token_hash, now, expires_at)
                        .await?;
                    Ok::<_, Error>(user)
                })
            })
            .await?;
        Ok(self.sign_in_link(user, &token, expires_at))
    }

    /// A fresh sign-in link for the user with `email` (a locked-out user); earlier unused
    /// links stop working.
    pub async fn reset_password_link(&self, email: &str) -> Result<SignInLink> {
        let email = normalize_email(email)?;
        let user = self
            .store
            .user_by_email(&email)
            .await?
            .ok_or_else(|| Error::not_found("user", &email))?;
        self.issue_link(user).await
    }

    /// Issues a sign-in link for `user`, revoking their earlier unused ones.
    async fn issue_link(&self, user: UserRecord) -> Result<SignInLink> {
        let (token, token_hash) = new_secret();
        let now = self.clock.timestamp();
        let expires_at = now.plus(SIGN_IN_LINK_VALIDITY);
        let id = user.id;
        self.store
            .write(move |tx| {
                Box::pin(async move {
                    tx.issue_sign_in_link(id, &token_hash, now, expires_at)
                        .await
                })
            })
            .await?;
        Ok(self.sign_in_link(user, &token, expires_at))
    }

    fn sign_in_link(&self, user: UserRecord, token: &str, expires_at: Timestamp) -> SignInLink {
        SignInLink {
            user: user.into(),
            url: self.url(&format!("/portal/password?token={token}")),
            expires_at,
        }
    }

    /// The user a sign-in link is for, while it is unused and unexpired.
    pub async fn sign_in_link_user(&self, token: &str) -> Result<User> {
        let hash = presented_secret(token).ok_or_else(unusable_link)?;
        let link = self
            .store
            .sign_in_link(&hash)
            .await?
            .filter(|l| bool::from(l.token_hash.ct_eq(&hash)))
            .filter(|l| l.used_at.is_none() && self.clock.timestamp() < l.expires_at)
            .ok_or_else(unusable_link)?;
        let user = self.store.user(link.user_id).await?;
        Ok(user.ok_or_else(unusable_link)?.into())
    }

    /// Sets the password through a sign-in link (used up), ends all the user's sessions and
    /// starts a new one.
    pub async fn set_password_with_link(
        &self,
        token: &str,
        password: &str,
    ) -> Result<StartedSession> {
        check_new_password(password)?;
        // Checked before hashing, so that a made-up token costs no hash.
        let user = self.sign_in_link_user(token).await?;
        let hash = presented_secret(token).ok_or_else(unusable_link)?;
        self.replace_password(user.id, password, Some(hash)).await
    }

    /// Changes the signed-in user's password after checking the current one (throttled as a
    /// sign-in is), ends all their sessions and starts a new one for the caller.
    pub async fn change_password(
        &self,
        user: &User,
        current: &str,
        new_password: &str,
        client: IpAddr,
    ) -> Result<StartedSession> {
        bounded_password(current)?;
        check_new_password(new_password)?;
        let user = self
            .authenticate(&user.email, current, client)
            .await
            .map_err(|e| match e.kind {
                crate::ErrorKind::Unauthenticated => {
                    Error::validation("current_password", "The current password is not right.")
                }
                _ => e,
            })?;
        self.replace_password(user.id, new_password, None).await
    }

    /// Sets `user`'s password, ends every session of theirs and starts a new one, in one
    /// transaction that also uses up the sign-in link hashing to `link`, when given: the
    /// one place a password changes.
    async fn replace_password(
        &self,
        user: UserId,
        password: &str,
        link: Option<[u8; 32]>,
    ) -> Result<StartedSession> {
        let password_hash = self.accounts.hash_password(password).await?;
        let new = self.new_session();
        let (id_hash, expires_at) = (new.hash, new.expires_at);
        let now = self.clock.timestamp();
        let user = self
            .store
            .write(move |tx| {
                Box::pin(async move {
                    if let Some(link) = link {
                        // Whoever uses the link first wins; a second use finds it used.
                        if tx.use_sign_in_link(&link, now).await? != Some(user) {
                            return Err(unusable_link());
                        }
                    }
                    let user = tx.set_password(user, &password_hash, now).await?;
                    tx.delete_sessions_of(user.id).await?;
                    tx.insert_session(&id_hash, user.id, now, expires_at)
                        .await?;
                    Ok(user)
                })
            })
            .await?;
        Ok(self.started(new, user))
    }

    /// Signs in with email and password from `client`.
    pub async fn sign_in(
        &self,
        email: &str,
        password: &str,
        client: IpAddr,
    ) -> Result<StartedSession> {
        let email = normalize_email(email)?;
        bounded_password(password)?;
        let user = self.authenticate(&email, password, client).await?;
        let new = self.new_session();
        let (id_hash, expires_at) = (new.hash, new.expires_at);
        let now = self.clock.timestamp();
        let id = user.id;
        self.store
            .write(move |tx| {
                Box::pin(async move { tx.insert_session(&id_hash, id, now, expires_at).await })
            })
            .await?;
        Ok(self.started(new, user))
    }

    /// The user whose (normalised) `email` and `password` these are. Every attempt is counted
    /// first, per client address and then per account, and refused before any hash is
    /// computed once either is over its limit; an attempt that succeeds is taken back.
    async fn authenticate(
        &self,
        email: &str,
        password: &str,
        client: IpAddr,
    ) -> Result<UserRecord> {
        let now = self.clock.timestamp();
        let ended_by = now.minus(THROTTLE_WINDOW);
        let keys = [
            (address_key(client), ATTEMPTS_PER_ADDRESS),
            (format!("account:{email}"), ATTEMPTS_PER_ACCOUNT),
        ];
        for (key, limit) in &keys {
            let window = self.store.count_sign_in_attempt(key, now, ended_by).await?;
            if window.attempts > *limit {
                // An address over its limit does not count against the account: someone
                // else's guessing does not lock its owner out.
                let reopens = window.window_start.plus(THROTTLE_WINDOW);
                let wait = Duration::from_micros(
                    u64::try_from(reopens.micros().saturating_sub(now.micros())).unwrap_or(0),
                );
                return Err(Error::throttled(
                    wait,
                    format!(
                        "Too many sign-in attempts. Try again in {}.",
                        wait_in_words(wait)
                    ),
                ));
            }
        }
        let user = self.store.user_by_email(email).await?;
        let stored = user.as_ref().and_then(|u| u.password_hash.clone());
        let verified = self.accounts.verify_password(password, stored).await?;
        match user {
            Some(user) if verified => {
                for (key, _) in &keys {
                    self.store.take_back_sign_in_attempt(key).await?;
                }
                Ok(user)
            }
            _ => Err(Error::unauthenticated(WRONG_CREDENTIALS)),
        }
    }

    /// A new session's secrets and absolute expiry, not stored yet.
    fn new_session(&self) -> NewSession {
        let (cookie, hash) = new_secret();
        NewSession {
            cookie,
            hash,
            expires_at: self.clock.timestamp().plus(self.accounts.sessions.lifetime),
        }
    }

    fn started(&self, new: NewSession, user: UserRecord) -> StartedSession {
        StartedSession {
            session: Session {
                user: user.into(),
                csrf_token: self.accounts.csrf_token(&new.cookie),
                expires_at: new.expires_at,
            },
            cookie: new.cookie,
        }
    }

    /// The live session a cookie names, if any (idle and absolute expiry applied).
    pub async fn session(&self, cookie: &str) -> Result<Option<Session>> {
        let Some(hash) = presented_secret(cookie) else {
            return Ok(None);
        };
        let Some(record) = self
            .store
            .session_by_hash(&hash)
            .await?
            .filter(|s| bool::from(s.id_hash.ct_eq(&hash)))
        else {
            return Ok(None);
        };
        let now = self.clock.timestamp();
        let idle_until = record
            .last_seen_at
            .plus(self.accounts.sessions.idle_timeout);
        if now >= record.expires_at || now >= idle_until {
            return Ok(None);
        }
        let Some(user) = self.store.user(record.user_id).await? else {
            return Ok(None);
        };
        if now >= record.last_seen_at.plus(TOUCH_EVERY) {
            self.store.touch_session(&hash, now).await?;
        }
        Ok(Some(Session {
            user: user.into(),
            csrf_token: self.accounts.csrf_token(cookie),
            expires_at: record.expires_at,
        }))
    }

    /// Ends the session a cookie names.
    pub async fn sign_out(&self, cookie: &str) -> Result<()> {
        if let Some(hash) = presented_secret(cookie) {
            self.store.delete_session(&hash).await?;
        }
        Ok(())
    }

    /// The workspaces `user` may open, with their role; all of them, as admin, for a
    /// platform admin (deleted ones included, as the API lists them to a platform token);
    /// the active ones they are a member of for anyone else. At most 1,000, newest first.
    pub async fn workspaces_of(&self, user: &User) -> Result<Vec<(WorkspaceRecord, Scope)>> {
        if user.platform_admin {
            let mut all = self
                .store
                .workspaces(None, &KeysetPage::first(MAX_LISTED))
                .await?;
            all.truncate(MAX_LISTED as usize);
            return Ok(all.into_iter().map(|w| (w, Scope::Admin)).collect());
        }
        let mine = self.store.workspaces_of_member(user.id, MAX_LISTED).await?;
        Ok(mine.into_iter().map(|m| (m.workspace, m.role)).collect())
    }

    /// The caller `user` is inside workspace `ws`: a platform admin is the platform; a member
    /// has their role; anyone else gets the 404 of a missing workspace.
    pub async fn portal_caller(&self, user: &User, ws: WorkspaceId) -> Result<Caller> {
        if user.platform_admin {
            return Ok(Caller {
                token_id: None,
                user_id: Some(user.id),
                workspace: None,
                scope: Scope::Admin,
                quota: u32::MAX,
            });
        }
        let membership = self
            .store
            .membership(user.id, ws)
            .await?
            .ok_or_else(|| Error::not_found("workspace", ws))?;
        Ok(Caller {
            token_id: None,
            user_id: Some(user.id),
            workspace: Some(ws),
            scope: membership.role,
            // What a token they mint may have at most: the platform's ceiling for workspace
            // tokens.
            quota: self.quotas.rate_limit,
        })
    }

    /// A page of the members of `ws` (a deleted one's too), newest first; the workspace's
    /// admins only.
    pub async fn members(
        &self,
        caller: &Caller,
        ws: &WorkspaceRecord,
        page: &KeysetPage,
    ) -> Result<Vec<Member>> {
        caller.check(ws.id, Scope::Admin, "workspace", ws.id)?;
        let members = self.store.members(ws.id, page).await?;
        Ok(members.into_iter().map(Member::from).collect())
    }

    /// Makes the person with `email` a member of `ws` with `role` (an admin of the active
    /// workspace may, never giving a role above their own; someone already a member is a
    /// conflict: change their role instead). A person new to the service is created; one who
    /// has no password yet gets a one-time sign-in link, made in the same transaction.
    pub async fn add_member(
        &self,
        tx: &mut Tx,
        caller: &Caller,
        ws: &WorkspaceRecord,
        email: &str,
        role: Scope,
    ) -> Result<(Member, Option<SignInLink>)> {
        caller.check(ws.id, Scope::Admin, "workspace", ws.id)?;
        ensure_active(ws)?;
        within_own_role(caller, role)?;
        let email = normalize_email(email)?;
        let now = self.clock.timestamp();
        let user = tx.put_user(&email, false, now).await?;
        let membership = tx
            .insert_membership(user.id, ws.id, role, now)
            .await?
            .ok_or_else(|| {
                Error::conflict(format!(
                    "{email} is already a member of this workspace; change their role instead."
                ))
            })?;
        let link = match user.password_hash {
            Some(_) => None,
            None => {
                let (token, token_hash) = new_secret();
                let expires_at = now.plus(SIGN_IN_LINK_VALIDITY);
                tx.issue_sign_in_link(user.id, &token_hash, now, expires_at)
                    .await?;
                Some(self.sign_in_link(user.clone(), &token, expires_at))
            }
        };
        let member = Member {
            user: user.into(),
            role: membership.role,
            since: membership.created_at,
        };
        Ok((member, link))
    }

    /// Gives the member `user` of `ws` the role `role` (an admin of the active workspace may,
    /// never above their own role).
    pub async fn change_member_role(
        &self,
        tx: &mut Tx,
        caller: &Caller,
        ws: &WorkspaceRecord,
        user: UserId,
        role: Scope,
    ) -> Result<Member> {
        caller.check(ws.id, Scope::Admin, "workspace", ws.id)?;
        ensure_active(ws)?;
        within_own_role(caller, role)?;
        let mut member = tx
            .member(user, ws.id)
            .await?
            .ok_or_else(|| Error::not_found("member", user))?;
        if role != Scope::Admin {
            keep_an_admin(tx, ws, user, member.role).await?;
        }
        if !tx.set_membership_role(user, ws.id, role).await? {
            return Err(Error::not_found("member", user));
        }
        member.role = role;
        Ok(member.into())
    }

    /// Ends `user`'s membership of `ws` (an admin of the active workspace may; never its last
    /// admin). Their access to `ws` ends at once, since every portal request reads the
    /// membership; their sessions go on in their other workspaces. Returns the membership as
    /// it was.
    pub async fn remove_member(
        &self,
        tx: &mut Tx,
        caller: &Caller,
        ws: &WorkspaceRecord,
        user: UserId,
    ) -> Result<Member> {
        caller.check(ws.id, Scope::Admin, "workspace", ws.id)?;
        ensure_active(ws)?;
        let member = tx
            .member(user, ws.id)
            .await?
            .ok_or_else(|| Error::not_found("member", user))?;
        keep_an_admin(tx, ws, user, member.role).await?;
        tx.delete_membership(user, ws.id).await?;
        Ok(member.into())
    }

    /// Forgets expired sessions and links and ended attempt windows (periodic housekeeping).
    pub async fn purge_accounts(&self) -> Result<u64> {
        let now = self.clock.timestamp();
        Ok(self
            .store
            .purge_accounts(
                now,
                now.minus(self.accounts.sessions.idle_timeout),
                now.minus(THROTTLE_WINDOW),
            )
            .await?)
    }
}

/// Refuses to take the admin role from `user` (whose role is `role`) when they are `ws`'s last
/// admin (409, as GitHub refuses to remove an organization's last owner): someone must be able
/// to manage it.
async fn keep_an_admin(tx: &mut Tx, ws: &WorkspaceRecord, user: UserId, role: Scope) -> Result<()> {
    if role == Scope::Admin && tx.other_admins(ws.id, user).await? == 0 {
        return Err(Error::conflict(
            "This is the workspace's last admin: make another member admin first.",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_argon2_parameters_are_owasps() {
        assert_eq!(
            (
                ARGON2_PARAMS.m_cost(),
                ARGON2_PARAMS.t_cost(),
                ARGON2_PARAMS.p_cost()
            ),
            (19_456, 2, 1)
        );
    }

    #[test]
    fn emails_are_trimmed_lowercased_and_checked() {
        assert_eq!(
            normalize_email("  Ada.Lovelace@Example.COM ")
                .ok()
                .as_deref(),
            Some("ada.lovelace@example.com")
        );
        let longest = format!("{}@example.com", "a".repeat(254 - 12));
        assert!(normalize_email(&longest).is_ok());
        for bad in [
            "",
            "ada",
            "@example.com",
            "ada@",
            "ada@@example.com",
            "a@b@c",
            "ada lovelace@example.com",
            "ada\u{0}@example.com",
            &format!("a{longest}"),
        ] {
            let e = normalize_email(bad).expect_err(bad);
            assert_eq!(e.param.as_deref(), Some("email"), "{bad}");
        }
    }

    #[test]
    fn new_passwords_need_twelve_characters_and_at_most_1024_bytes() {
        assert!(check_new_password("correct horse").is_ok());
        assert!(check_new_password("ééééééééééé").is_err(), "11 characters");
        assert!(
            check_new_password("éééééééééééé").is_ok(),
            "12 characters, 24 bytes"
        );
        assert!(check_new_password(&"x".repeat(1024)).is_ok());
        let e = check_new_password(&"x".repeat(1025)).expect_err("too long");
        assert!(e.message.contains("1024"), "{}", e.message);
        assert_eq!(e.param.as_deref(), Some("password"));
    }

    #[test]
    fn secrets_are_256_bits_and_only_ours_are_read() {
        let (text, hash) = new_secret();
        assert_eq!(text.len(), 43);
        assert_eq!(presented_secret(&text), Some(hash));
        assert_ne!(new_secret().0, text);
        assert!(
            presented_secret(&"A".repeat(43)).is_some(),
            "all zeros is a secret"
        );
        let not_ours = [
            String::new(),
            "short".into(),
            format!("{text}="),
            format!("+{}", &text[1..]),
            // 43 characters carry 258 bits: the last one's 2 spare bits must be zero, so each
            // secret has one text (its CSRF token and its hash agree).
            format!("{}B", "A".repeat(42)),
        ];
        for bad in not_ours {
            assert!(presented_secret(&bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn addresses_are_throttled_by_ipv4_address_or_ipv6_slash_64() {
        let key = |s: &str| address_key(s.parse().expect("an address"));
        assert_eq!(key("192.0.2.7"), "addr:192.0.2.7");
        assert_eq!(key("::ffff:192.0.2.7"), "addr:192.0.2.7");
        assert_eq!(key("2001:db8:1:2:3:4:5:6"), "addr:2001:db8:1:2::/64");
        assert_eq!(key("2001:db8:1:2::9"), key("2001:db8:1:2:ffff::1"));
        assert_ne!(key("2001:db8:1:2::9"), key("2001:db8:1:3::9"));
    }

    #[test]
    fn waits_are_said_in_words() {
        assert_eq!(wait_in_words(Duration::from_millis(10)), "1 second");
        assert_eq!(wait_in_words(Duration::from_secs(40)), "40 seconds");
        assert_eq!(wait_in_words(Duration::from_secs(60)), "1 minute");
        assert_eq!(wait_in_words(Duration::from_secs(61)), "2 minutes");
        assert_eq!(wait_in_words(THROTTLE_WINDOW), "15 minutes");
    }

    #[test]
    fn nobody_gives_a_role_above_their_own() {
        let caller = |scope| Caller {
            scope,
            workspace: Some(WorkspaceId::generate()),
            ..Caller::operator()
        };
        assert!(within_own_role(&caller(Scope::Admin), Scope::Admin).is_ok());
        assert!(within_own_role(&caller(Scope::Publish), Scope::Write).is_ok());
        let e = within_own_role(&caller(Scope::Publish), Scope::Admin).expect_err("above");
        assert_eq!(e.param.as_deref(), Some("role"));
        assert_eq!(e.kind, crate::ErrorKind::Validation);
    }

    #[test]
    fn csrf_matches_only_the_sessions_own_token() {
        let accounts = Accounts::new(&[7; 32], SessionSettings::default());
        let (one, other) = (new_secret().0, new_secret().0);
        let session = Session {
            user: User {
                id: UserId::generate(),
                email: "a@example.com".into(),
                platform_admin: false,
            },
            csrf_token: accounts.csrf_token(&one),
            expires_at: Timestamp::from_micros(0).expect("the epoch"),
        };
        assert!(session.csrf_matches(&accounts.csrf_token(&one)));
        assert!(!session.csrf_matches(&accounts.csrf_token(&other)));
        assert!(!session.csrf_matches(""));
        assert!(!session.csrf_matches(&session.csrf_token[1..]));
        let other_key = Accounts::new(&[8; 32], SessionSettings::default());
        assert!(!session.csrf_matches(&other_key.csrf_token(&one)));
    }
}
