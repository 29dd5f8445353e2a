//! The stateful era's HTTP sessions (`MCP-Session-Id`): random ids, a cap
//! on live sessions, idle expiry (a session with requests in flight is
//! never idle, nor is one with its GET stream open), the principal a
//! session belongs to, and the slot of its standalone GET stream. With a
//! session store, sessions of other replicas are adopted under their id.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::random::RandomError;
use crate::server::Session;

/// One live session.
pub(crate) struct Entry {
    pub(crate) session: Session,
    /// The authenticated subject that created it, if any: other subjects
    /// cannot use it.
    pub(crate) owner: Option<String>,
    last_seen: Mutex<Instant>,
    /// When the store last heard of this session (its expiry restarted).
    stored: Mutex<Instant>,
    /// Where server-initiated messages go while a GET stream is open.
    pub(crate) stream: Mutex<Option<mpsc::Sender<String>>>,
}

impl Entry {
    fn idle_for(&self, now: Instant) -> Duration {
        now.saturating_duration_since(*self.last_seen.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn touch(&self) {
        *self.last_seen.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    /// Whether the store's expiry should be restarted now (at most once
    /// per `every`).
    pub(crate) fn store_due(&self, every: Duration) -> bool {
        let mut stored = self.stored.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if now.saturating_duration_since(*stored) < every {
            return false;
        }
        *stored = now;
        true
    }

    fn streaming(&self) -> bool {
        self.stream
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .is_some_and(|tx| !tx.is_closed())
    }

    fn new(session: Session, owner: Option<String>) -> Self {
        let now = Instant::now();
        Self {
            session,
            owner,
            last_seen: Mutex::new(now),
            stored: Mutex::new(now),
            stream: Mutex::new(None),
        }
    }
}

/// All live sessions of one HTTP service.
pub(crate) struct Sessions {
    map: Mutex<HashMap<String, Arc<Entry>>>,
    max: usize,
    idle: Duration,
}

/// The cap on live sessions is reached (no expired session to drop).
#[derive(Debug)]
pub(crate) struct Full;

/// Why a new session could not be opened.
#[derive(Debug)]
pub(crate) enum Refused {
    /// At the cap on live sessions.
    Full,
    /// No unguessable id: the operating system's random source failed.
    NoRandomness(RandomError),
}

impl Sessions {
    pub(crate) fn new(max: usize, idle: Duration) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            max,
            idle,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Entry>>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn expired(&self, entry: &Entry, now: Instant) -> bool {
        entry.session.in_flight() == 0 && entry.idle_for(now) > self.idle && !entry.streaming()
    }

    /// Makes room for one more session: at the cap, expired sessions are
    /// dropped first; `false` when there is still none.
    fn room(&self, map: &mut HashMap<String, Arc<Entry>>) -> bool {
        if map.len() >= self.max {
            let now = Instant::now();
            map.retain(|_, e| {
                let keep = !self.expired(e, now);
                if !keep {
                    e.session.cancel_all();
                }
                keep
            });
        }
        map.len() < self.max
    }

    /// Opens a session; at the cap, expired sessions are dropped first.
    /// Without randomness for its id, no session is opened.
    pub(crate) fn open(
        &self,
        session: Session,
        owner: Option<String>,
    ) -> Result<(String, Arc<Entry>), Refused> {
        let id = new_id().map_err(Refused::NoRandomness)?;
        let entry = Arc::new(Entry::new(session, owner));
        let mut map = self.lock();
        if !self.room(&mut map) {
            return Err(Refused::Full);
        }
        map.insert(id.clone(), Arc::clone(&entry));
        Ok((id, entry))
    }

    /// Takes in session `id` of another replica (restored from the store);
    /// when it is here already (a concurrent adoption), that one is kept.
    pub(crate) fn adopt(
        &self,
        id: &str,
        session: Session,
        owner: Option<String>,
    ) -> Result<Arc<Entry>, Full> {
        let mut map = self.lock();
        if let Some(existing) = map.get(id) {
            existing.touch();
            return Ok(Arc::clone(existing));
        }
        if !self.room(&mut map) {
            return Err(Full);
        }
        let entry = Arc::new(Entry::new(session, owner));
        map.insert(id.to_owned(), Arc::clone(&entry));
        Ok(entry)
    }

    /// Session `id` if it is here, without marking it used.
    pub(crate) fn peek(&self, id: &str) -> Option<Arc<Entry>> {
        self.lock().get(id).cloned()
    }

    /// The live session `id`, marked as used; an expired one is removed.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Entry>> {
        let mut map = self.lock();
        let entry = map.get(id)?;
        if self.expired(entry, Instant::now()) {
            if let Some(gone) = map.remove(id) {
                gone.session.cancel_all();
            }
            return None;
        }
        entry.touch();
        Some(Arc::clone(entry))
    }

    /// Ends session `id`; `false` when it does not exist.
    pub(crate) fn close(&self, id: &str) -> bool {
        match self.lock().remove(id) {
            Some(entry) => {
                entry.session.cancel_all();
                *entry.stream.lock().unwrap_or_else(|p| p.into_inner()) = None;
                true
            }
            None => false,
        }
    }

    /// Forgets a session without a successful `initialize`.
    pub(crate) fn discard(&self, id: &str) {
        self.lock().remove(id);
    }

    /// Live sessions (expired ones not yet removed included).
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Removes every expired session.
    pub(crate) fn sweep(&self) {
        let now = Instant::now();
        self.lock().retain(|_, e| !self.expired(e, now));
    }
}

/// 128 random bits as 32 hex digits (visible ASCII, as the transport asks).
fn new_id() -> Result<String, RandomError> {
    let mut bytes = [0u8; 16];
    crate::random::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> Session {
        crate::server::Session::new(4)
    }

    #[test]
    fn ids_are_unique_hex() {
        let a = new_id().unwrap();
        let b = new_id().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn the_cap_holds_and_expired_sessions_make_room() {
        let sessions = Sessions::new(2, Duration::from_millis(30));
        let (a, _) = sessions.open(session(), None).unwrap();
        sessions.open(session(), None).unwrap();
        assert!(
            matches!(sessions.open(session(), None), Err(Refused::Full)),
            "third session over the cap"
        );
        std::thread::sleep(Duration::from_millis(60));
        assert!(sessions.get(&a).is_none(), "expired session is gone");
        sessions.open(session(), None).unwrap();
        assert!(sessions.len() <= 2);
    }

    #[test]
    fn no_session_opens_without_randomness_for_its_id() {
        let sessions = Sessions::new(8, Duration::from_secs(60));
        let refused = crate::random::fail::with_failing_source(|| sessions.open(session(), None));
        assert!(
            matches!(refused, Err(Refused::NoRandomness(_))),
            "{:?}",
            refused.err()
        );
        assert_eq!(sessions.len(), 0);
        sessions.open(session(), None).unwrap();
    }

    #[test]
    fn close_ends_a_session() {
        let sessions = Sessions::new(8, Duration::from_secs(60));
        let (id, _) = sessions.open(session(), None).unwrap();
        assert!(sessions.get(&id).is_some());
        assert!(sessions.close(&id));
        assert!(sessions.get(&id).is_none());
        assert!(!sessions.close(&id));
    }
}
