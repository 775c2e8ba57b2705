//! Real git repositories, built with git2 (no `git` program needed). Commits are dated by a
//! clock of their own, an hour apart, so that histories are the same on every run.

use std::path::{Path, PathBuf};

use git2::{IndexAddOption, Repository, Signature, Time};

pub struct Repo {
    pub path: PathBuf,
    pub git: Repository,
    clock: i64,
    _dir: Option<tempfile::TempDir>,
}

impl Default for Repo {
    fn default() -> Self {
        Self::new()
    }
}

impl Repo {
    /// An empty repository at `<a temp dir>/repo`; the temp dir goes when the `Repo` does.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = Self::init(&dir.path().join("repo"));
        Self {
            _dir: Some(dir),
            ..repo
        }
    }

    /// An empty repository at `path` (created if missing), left in place when dropped.
    pub fn init(path: &Path) -> Self {
        std::fs::create_dir_all(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let git = Repository::init(path).expect("git init");
        Self {
            path: path.to_path_buf(),
            git,
            clock: 1_700_000_000,
            _dir: None,
        }
    }

    /// Points the `origin` remote at `url` (where the repository is browsed, for forge links).
    pub fn set_origin(&self, url: &str) -> &Self {
        self.git.remote("origin", url).expect("git remote add");
        self
    }

    /// The folder holding the repository, outside it.
    pub fn outside(&self) -> PathBuf {
        self.path
            .parent()
            .expect("a repository has a parent folder")
            .to_path_buf()
    }

    pub fn write(&self, path: &str, content: impl AsRef<[u8]>) -> &Self {
        let full = self.prepare(path);
        std::fs::write(&full, content).unwrap_or_else(|e| panic!("{}: {e}", full.display()));
        self
    }

    pub fn read(&self, path: &str) -> String {
        let full = self.path.join(path);
        std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
    }

    pub fn remove(&self, path: &str) -> &Self {
        let full = self.path.join(path);
        std::fs::remove_file(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()));
        self
    }

    pub fn rename(&self, from: &str, to: &str) -> &Self {
        let target = self.prepare(to);
        std::fs::rename(self.path.join(from), &target)
            .unwrap_or_else(|e| panic!("{from} -> {to}: {e}"));
        self
    }

    pub fn symlink(&self, path: &str, target: &str) -> &Self {
        let full = self.prepare(path);
        std::os::unix::fs::symlink(target, &full)
            .unwrap_or_else(|e| panic!("{}: {e}", full.display()));
        self
    }

    /// Commits every change of the working tree (new, changed and deleted files); returns the
    /// commit id.
    pub fn commit(&mut self, message: &str) -> String {
        self.commit_as(message, "Ada Lovelace")
    }

    pub fn commit_as(&mut self, message: &str, author: &str) -> String {
        let mut index = self.git.index().expect("index");
        index
            .add_all(["*"], IndexAddOption::DEFAULT, None)
            .expect("add every file");
        index.update_all(["*"], None).expect("stage deletions");
        index.write().expect("write the index");
        let tree_id = index.write_tree().expect("write the tree");
        let tree = self.git.find_tree(tree_id).expect("tree");
        self.clock += 3600;
        let signature = Signature::new(author, "dev@example.com", &Time::new(self.clock, 0))
            .expect("signature");
        let parent = self.git.head().ok().and_then(|h| h.peel_to_commit().ok());
        let parents: Vec<&git2::Commit> = parent.iter().collect();
        self.git
            .commit(
                Some("HEAD"),
                &signature,
                &signature,
                message,
                &tree,
                &parents,
            )
            .expect("commit")
            .to_string()
    }

    /// Moves the current branch (and the working tree) to `commit`: the commits after it are
    /// then on no branch, as a pull request's are before it is merged.
    pub fn reset_to(&mut self, commit: &str) {
        let oid = git2::Oid::from_str(commit).expect("a commit id");
        let target = self.git.find_object(oid, None).expect("the commit");
        self.git
            .reset(&target, git2::ResetType::Hard, None)
            .expect("reset");
    }

    /// A merge commit of `other` into HEAD, with `other`'s tree (the main line has not moved
    /// since `other` forked from it, as with `git merge --no-ff`); returns its id.
    pub fn merge(&mut self, other: &str, message: &str) -> String {
        let other = self
            .git
            .find_commit(git2::Oid::from_str(other).expect("a commit id"))
            .expect("the merged commit");
        let head = self
            .git
            .head()
            .and_then(|h| h.peel_to_commit())
            .expect("HEAD");
        self.clock += 3600;
        let signature = Signature::new(
            "Grace Hopper",
            "merge@example.com",
            &Time::new(self.clock, 0),
        )
        .expect("signature");
        let tree = other.tree().expect("tree");
        let id = self
            .git
            .commit(
                Some("HEAD"),
                &signature,
                &signature,
                message,
                &tree,
                &[&head, &other],
            )
            .expect("merge commit");
        drop((tree, other, head));
        self.reset_to(&id.to_string());
        id.to_string()
    }

    /// The commit HEAD points at.
    pub fn head(&self) -> String {
        self.git
            .head()
            .ok()
            .and_then(|h| h.target())
            .expect("HEAD is a commit")
            .to_string()
    }

    /// The id of the blob at `path` in HEAD.
    pub fn blob_id(&self, path: &str) -> String {
        let head = self
            .git
            .head()
            .and_then(|h| h.peel_to_tree())
            .expect("HEAD has a tree");
        head.get_path(Path::new(path))
            .unwrap_or_else(|e| panic!("{path} in HEAD: {e}"))
            .id()
            .to_string()
    }

    /// `path` inside the repository, its folders created.
    fn prepare(&self, path: &str) -> PathBuf {
        let full = self.path.join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{}: {e}", parent.display()));
        }
        full
    }
}
