//! `<mpi.h>`'s library: the MPI subset written in C on the MPI instruction
//! ([`crate::vcode::mpi_op`]), linked on demand like the C library ([`super::library`]).
//! Its code runs on the simulated processors like the program's (an `MPI_Bcast` costs
//! the instructions of its loop and the messages of its tree), and every function is a
//! named region in profiles and traces.
//!
//! State per rank lives in the globals `<mpi.h>` declares (`__cppe_mpi`): each rank has
//! its own copy (`cpss --ranks`). A communicator is an index into `__cppe_mpi.comms`
//! (`MPI_COMM_WORLD` 0, `MPI_COMM_SELF` 1) holding a context number, its size, the
//! caller's rank in it and its members' world ranks (none for the world: the identity).
//! Point-to-point messages of a communicator with context c travel in context 4c,
//! collective ones in 4c+1, and the acknowledgement of an `MPI_Ssend` in 4c+2, so none
//! can match another's receive.
//!
//! Algorithms (the collectives are point-to-point messages on the simulated network):
//! `MPI_Barrier` dissemination (⌈log₂ n⌉ rounds, SMPI `ompi_bruck`); `MPI_Bcast` and
//! `MPI_Reduce` binomial trees rooted at `root` (MPICH's, SMPI's `binomial_tree` and
//! `binomial`); `MPI_Allreduce` recursive
//! doubling for a power-of-two size (SMPI `rdb`), otherwise a binomial reduce to rank 0
//! then a binomial broadcast; `MPI_Gather(v)` and `MPI_Scatter(v)` linear at the root
//! (SMPI `ompi_basic_linear`); `MPI_Allgather` ring (SMPI `ring`); `MPI_Alltoall`
//! pairwise exchange (SMPI `pair`); `MPI_Scan` a linear chain. A new communicator's
//! context comes from the run's counter (`mpi_op::CONTEXT`), taken by its rank 0 and
//! broadcast, as SMPI's `Comm` constructor does; `MPI_Comm_split` gathers the colours
//! and keys at rank 0, which sends each member its group (SMPI's algorithm).
//!
//! Receives: a blocking receive matches the earliest arrived message of its pattern
//! (a probe also sees a rendezvous message's envelope: MATCH's mode bit 1); a
//! request of `MPI_Irecv` is matched when the program waits for or tests a request
//! (each wait or test first matches the pending receives in the order they were
//! posted), so the receives of one rank match in posting order whenever their messages
//! have arrived.
use std::sync::OnceLock;

/// Name and C source of each MPI library function.
const MPI_LIBRARY: &[(&str, &str)] = &[
    (
        "__cppe_mpi_fail",
        "void __cppe_mpi_fail(const char *f, const char *what, int v) { \
         fprintf((struct __cppe_file *)-3, \"%s on rank %d: %s %d\\n\", f, __cppe_mpi_rank(), what, v); exit(1); }",
    ),
    ("__cppe_mpi_words", "int __cppe_mpi_words(int dt) { return dt >= 20 ? 2 : 1; }"),
    (
        "__cppe_mpi_comm_of",
        "struct __cppe_mpi_comm *__cppe_mpi_comm_of(int comm, const char *f) { struct __cppe_mpi_comm *c; \
         if ((unsigned)comm < (unsigned)__cppe_mpi.ncomms) { c = __cppe_mpi.comms + comm; if (c->size) return c; } \
         if (!__cppe_mpi.init) __cppe_mpi_fail(f, \"called outside MPI_Init ... MPI_Finalize, communicator\", comm); \
         __cppe_mpi_fail(f, \"invalid communicator\", comm); return 0; }",
    ),
    (
        "__cppe_mpi_world",
        "int __cppe_mpi_world(struct __cppe_mpi_comm *c, int r, const char *f) { \
         if ((unsigned)r >= (unsigned)c->size) __cppe_mpi_fail(f, \"invalid rank\", r); return c->ranks ? c->ranks[r] : r; }",
    ),
    (
        "__cppe_mpi_local",
        "int __cppe_mpi_local(struct __cppe_mpi_comm *c, int w) { int i; if (!c->ranks) return w; \
         for (i = 0; i < c->size; i++) if (c->ranks[i] == w) return i; return -1; }",
    ),
    (
        "__cppe_mpi_new_comm",
        "int __cppe_mpi_new_comm(int ctx, int size, int rank, int *ranks) { int k; struct __cppe_mpi_comm *c; \
         for (k = 2; k < __cppe_mpi.ncomms; k++) if (__cppe_mpi.comms[k].size == 0) break; \
         if (k == __cppe_mpi.ncomms) { __cppe_mpi.ncomms++; \
         __cppe_mpi.comms = realloc(__cppe_mpi.comms, __cppe_mpi.ncomms * sizeof(struct __cppe_mpi_comm)); } \
         c = __cppe_mpi.comms + k; c->ctx = ctx; c->size = size; c->rank = rank; c->ranks = ranks; \
         c->ndims = 0; c->dims = 0; c->periods = 0; return k; }",
    ),
    (
        "MPI_Init",
        "int MPI_Init(int *argc, char ***argv) { struct __cppe_mpi_comm *c; \
         if (__cppe_mpi.init || __cppe_mpi.fin) __cppe_mpi_fail(\"MPI_Init\", \"called twice\", 0); \
         __cppe_mpi.comms = malloc(2 * sizeof(struct __cppe_mpi_comm)); __cppe_mpi.ncomms = 2; \
         c = __cppe_mpi.comms; c->ctx = 0; c->size = __cppe_mpi_size(); c->rank = __cppe_mpi_rank(); c->ranks = 0; \
         c->ndims = 0; c->dims = 0; c->periods = 0; \
         c = __cppe_mpi.comms + 1; c->ctx = 1; c->size = 1; c->rank = 0; c->ranks = malloc(sizeof(int)); \
         c->ranks[0] = __cppe_mpi_rank(); c->ndims = 0; c->dims = 0; c->periods = 0; \
         __cppe_mpi.init = 1; return 0; }",
    ),
    (
        "MPI_Finalize",
        "int MPI_Finalize(void) { __cppe_mpi_comm_of(0, \"MPI_Finalize\"); __cppe_mpi.init = 0; __cppe_mpi.fin = 1; \
         __cppe_mpi.ncomms = 0; return 0; }",
    ),
    ("MPI_Initialized", "int MPI_Initialized(int *flag) { *flag = __cppe_mpi.init || __cppe_mpi.fin; return 0; }"),
    ("MPI_Finalized", "int MPI_Finalized(int *flag) { *flag = __cppe_mpi.fin; return 0; }"),
    (
        "MPI_Abort",
        "int MPI_Abort(int comm, int code) { fprintf((struct __cppe_file *)-3, \
         \"MPI_Abort on rank %d: error code %d\\n\", __cppe_mpi_rank(), code); exit(code ? code : 1); return 0; }",
    ),
    (
        "MPI_Comm_rank",
        "int MPI_Comm_rank(int comm, int *rank) { *rank = __cppe_mpi_comm_of(comm, \"MPI_Comm_rank\")->rank; return 0; }",
    ),
    (
        "MPI_Comm_size",
        "int MPI_Comm_size(int comm, int *size) { *size = __cppe_mpi_comm_of(comm, \"MPI_Comm_size\")->size; return 0; }",
    ),
    ("MPI_Wtime", "double MPI_Wtime(void) { return __cppe_mpi_wtime(); }"),
    ("MPI_Wtick", "double MPI_Wtick(void) { return __cppe_mpi_wtick(); }"),
    (
        "__cppe_mpi_send_core",
        "int __cppe_mpi_send_core(const void *buf, int count, int dt, int dest, int tag, int comm, int flags, \
         const char *f) { struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, f); int w; int p[3]; int info[5]; \
         if (dest == -666) return 0; if ((tag | count) < 0) { if (tag < 0) __cppe_mpi_fail(f, \"invalid tag\", tag); \
         __cppe_mpi_fail(f, \"invalid count\", count); } \
         w = __cppe_mpi_world(c, dest, f); __cppe_mpi_send(buf, dt >= 20 ? count + count : count, w, tag, 4 * c->ctx, flags); \
         if (flags & 1) { p[0] = w; p[1] = tag; p[2] = 4 * c->ctx + 2; __cppe_mpi_match(p, 1, 1, info); \
         __cppe_mpi_take(0, 0); } return 0; }",
    ),
    (
        "MPI_Send",
        "int MPI_Send(const void *buf, int count, int dt, int dest, int tag, int comm) { \
         return __cppe_mpi_send_core(buf, count, dt, dest, tag, comm, 0, \"MPI_Send\"); }",
    ),
    (
        "MPI_Ssend",
        "int MPI_Ssend(const void *buf, int count, int dt, int dest, int tag, int comm) { \
         return __cppe_mpi_send_core(buf, count, dt, dest, tag, comm, 1, \"MPI_Ssend\"); }",
    ),
    (
        "__cppe_mpi_pattern",
        "void __cppe_mpi_pattern(int *p, struct __cppe_mpi_comm *c, int source, int tag, const char *f) { \
         if (source == -555) p[0] = -1; else if ((unsigned)source < (unsigned)c->size) p[0] = c->ranks ? c->ranks[source] : source; \
         else __cppe_mpi_fail(f, \"invalid rank\", source); \
         if (tag == -444) p[1] = -1; else if (tag < 0) __cppe_mpi_fail(f, \"invalid tag\", tag); else p[1] = tag; \
         p[2] = 4 * c->ctx; }",
    ),
    (
        "__cppe_mpi_null_status",
        "void __cppe_mpi_null_status(struct __cppe_mpi_status *st) { if (st) { st->MPI_SOURCE = -666; st->MPI_TAG = -444; \
         st->MPI_ERROR = 0; st->__count = 0; } }",
    ),
    (
        "__cppe_mpi_finish",
        "void __cppe_mpi_finish(struct __cppe_mpi_comm *c, int *info, int n, struct __cppe_mpi_status *st) { \
         if (info[3] & 1) __cppe_mpi_send(0, 0, info[0], info[1], info[4] + 2, 0); \
         if (st) { st->MPI_SOURCE = __cppe_mpi_local(c, info[0]); st->MPI_TAG = info[1]; st->MPI_ERROR = 0; \
         st->__count = n; } }",
    ),
    (
        "__cppe_mpi_recv_core",
        "int __cppe_mpi_recv_core(void *buf, int count, int dt, int source, int tag, int comm, \
         struct __cppe_mpi_status *st, int block, const char *f) { struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, f); \
         int p[3]; int info[5]; int n; if (source == -666) { __cppe_mpi_null_status(st); return 1; } \
         __cppe_mpi_pattern(p, c, source, tag, f); if (__cppe_mpi_match(p, 1, block, info) < 0) return 0; \
         n = __cppe_mpi_take(buf, dt >= 20 ? count + count : count); if (st || info[3] & 1) __cppe_mpi_finish(c, info, n, st); \
         return 1; }",
    ),
    (
        "MPI_Recv",
        "int MPI_Recv(void *buf, int count, int dt, int source, int tag, int comm, struct __cppe_mpi_status *st) { \
         if (__cppe_mpi.nreqs) __cppe_mpi_progress(); __cppe_mpi_recv_core(buf, count, dt, source, tag, comm, st, 1, \"MPI_Recv\"); return 0; }",
    ),
    (
        "__cppe_mpi_probe_core",
        "int __cppe_mpi_probe_core(int source, int tag, int comm, struct __cppe_mpi_status *st, int block, \
         const char *f) { struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, f); int p[3]; int info[5]; \
         if (source == -666) { __cppe_mpi_null_status(st); return 1; } __cppe_mpi_pattern(p, c, source, tag, f); \
         if (__cppe_mpi_match(p, 1, block | 2, info) < 0) return 0; \
         if (st) { st->MPI_SOURCE = __cppe_mpi_local(c, info[0]); st->MPI_TAG = info[1]; st->MPI_ERROR = 0; \
         st->__count = info[2]; } return 1; }",
    ),
    (
        "MPI_Probe",
        "int MPI_Probe(int source, int tag, int comm, struct __cppe_mpi_status *st) { \
         __cppe_mpi_probe_core(source, tag, comm, st, 1, \"MPI_Probe\"); return 0; }",
    ),
    (
        "MPI_Iprobe",
        "int MPI_Iprobe(int source, int tag, int comm, int *flag, struct __cppe_mpi_status *st) { \
         *flag = __cppe_mpi_probe_core(source, tag, comm, st, 0, \"MPI_Iprobe\"); return 0; }",
    ),
    (
        "MPI_Get_count",
        "int MPI_Get_count(const struct __cppe_mpi_status *st, int dt, int *count) { int w = __cppe_mpi_words(dt); \
         *count = st->__count % w ? -333 : st->__count / w; return 0; }",
    ),
    (
        "MPI_Sendrecv",
        "int MPI_Sendrecv(const void *sbuf, int scount, int sdt, int dest, int stag, void *rbuf, int rcount, int rdt, \
         int source, int rtag, int comm, struct __cppe_mpi_status *st) { \
         __cppe_mpi_send_core(sbuf, scount, sdt, dest, stag, comm, 0, \"MPI_Sendrecv\"); if (__cppe_mpi.nreqs) __cppe_mpi_progress(); \
         __cppe_mpi_recv_core(rbuf, rcount, rdt, source, rtag, comm, st, 1, \"MPI_Sendrecv\"); return 0; }",
    ),
    (
        "MPI_Sendrecv_replace",
        "int MPI_Sendrecv_replace(void *buf, int count, int dt, int dest, int stag, int source, int rtag, int comm, \
         struct __cppe_mpi_status *st) { \
         __cppe_mpi_send_core(buf, count, dt, dest, stag, comm, 0, \"MPI_Sendrecv_replace\"); if (__cppe_mpi.nreqs) __cppe_mpi_progress(); \
         __cppe_mpi_recv_core(buf, count, dt, source, rtag, comm, st, 1, \"MPI_Sendrecv_replace\"); return 0; }",
    ),
    // Requests: `kind` 1 a send (complete at once: sends are buffered), 2 a receive;
    // `seq` the posting order; a free slot has kind 0. The handle is the slot's index.
    (
        "__cppe_mpi_new_req",
        "int __cppe_mpi_new_req(int kind) { int k; struct __cppe_mpi_req *q; \
         for (k = 0; k < __cppe_mpi.nreqs; k++) if (__cppe_mpi.reqs[k].kind == 0) break; \
         if (k == __cppe_mpi.nreqs) { __cppe_mpi.nreqs++; \
         __cppe_mpi.reqs = realloc(__cppe_mpi.reqs, __cppe_mpi.nreqs * sizeof(struct __cppe_mpi_req)); } \
         q = __cppe_mpi.reqs + k; q->kind = kind; q->done = 0; q->seq = ++__cppe_mpi.req_seq; \
         __cppe_mpi_null_status(&q->st); q->st.MPI_SOURCE = 0; q->st.MPI_TAG = 0; return k; }",
    ),
    (
        "MPI_Isend",
        "int MPI_Isend(const void *buf, int count, int dt, int dest, int tag, int comm, int *req) { \
         __cppe_mpi_send_core(buf, count, dt, dest, tag, comm, 0, \"MPI_Isend\"); *req = __cppe_mpi_new_req(1); \
         __cppe_mpi.reqs[*req].done = 1; return 0; }",
    ),
    (
        "MPI_Irecv",
        "int MPI_Irecv(void *buf, int count, int dt, int source, int tag, int comm, int *req) { \
         struct __cppe_mpi_req *q; __cppe_mpi_comm_of(comm, \"MPI_Irecv\"); *req = __cppe_mpi_new_req(2); \
         q = __cppe_mpi.reqs + *req; q->buf = buf; q->count = count; q->dt = dt; q->source = source; q->tag = tag; \
         q->comm = comm; if (source == -666) { q->done = 1; q->st.MPI_SOURCE = -666; q->st.MPI_TAG = -444; } \
         if (__cppe_mpi.nreqs) __cppe_mpi_progress(); return 0; }",
    ),
    (
        "__cppe_mpi_try",
        "void __cppe_mpi_try(int k, int block) { struct __cppe_mpi_req *q = __cppe_mpi.reqs + k; \
         if (q->kind != 2 || q->done) return; \
         q->done = __cppe_mpi_recv_core(q->buf, q->count, q->dt, q->source, q->tag, q->comm, &q->st, block, \"MPI_Wait\"); }",
    ),
    // The pending receives, oldest first, each matched if its message has arrived.
    (
        "__cppe_mpi_progress",
        "void __cppe_mpi_progress(void) { int last = 0; while (1) { int k; int best = -1; \
         for (k = 0; k < __cppe_mpi.nreqs; k++) { struct __cppe_mpi_req *q = __cppe_mpi.reqs + k; \
         if (q->kind == 2 && !q->done && q->seq > last && (best < 0 || q->seq < __cppe_mpi.reqs[best].seq)) best = k; } \
         if (best < 0) return; last = __cppe_mpi.reqs[best].seq; __cppe_mpi_try(best, 0); } }",
    ),
    (
        "__cppe_mpi_complete",
        "void __cppe_mpi_complete(int *req, struct __cppe_mpi_status *st) { struct __cppe_mpi_req *q = __cppe_mpi.reqs + *req; \
         if (st) *st = q->st; q->kind = 0; *req = -1; }",
    ),
    (
        "__cppe_mpi_req_of",
        "struct __cppe_mpi_req *__cppe_mpi_req_of(int r, const char *f) { \
         if (r < 0 || r >= __cppe_mpi.nreqs || __cppe_mpi.reqs[r].kind == 0) __cppe_mpi_fail(f, \"invalid request\", r); \
         return __cppe_mpi.reqs + r; }",
    ),
    (
        "MPI_Wait",
        "int MPI_Wait(int *req, struct __cppe_mpi_status *st) { struct __cppe_mpi_req *q; \
         if (*req == -1) { __cppe_mpi_null_status(st); if (st) { st->MPI_SOURCE = -555; } return 0; } \
         q = __cppe_mpi_req_of(*req, \"MPI_Wait\"); if (__cppe_mpi.nreqs) __cppe_mpi_progress(); __cppe_mpi_try(*req, 1); \
         __cppe_mpi_complete(req, st); return 0; }",
    ),
    (
        "MPI_Test",
        "int MPI_Test(int *req, int *flag, struct __cppe_mpi_status *st) { struct __cppe_mpi_req *q; \
         if (*req == -1) { *flag = 1; __cppe_mpi_null_status(st); if (st) { st->MPI_SOURCE = -555; } return 0; } \
         q = __cppe_mpi_req_of(*req, \"MPI_Test\"); if (__cppe_mpi.nreqs) __cppe_mpi_progress(); *flag = q->done; \
         if (q->done) __cppe_mpi_complete(req, st); return 0; }",
    ),
    (
        "MPI_Waitall",
        "int MPI_Waitall(int n, int *reqs, struct __cppe_mpi_status *sts) { int i; \
         for (i = 0; i < n; i++) MPI_Wait(reqs + i, sts ? sts + i : 0); return 0; }",
    ),
    // Blocks until one of the pending receives among `reqs` can match (the patterns
    // in the order the receives were posted).
    (
        "MPI_Waitany",
        "int MPI_Waitany(int n, int *reqs, int *index, struct __cppe_mpi_status *st) { int i; int m; int *p; int *which; \
         int info[5]; int any = 0; if (__cppe_mpi.nreqs) __cppe_mpi_progress(); \
         for (i = 0; i < n; i++) if (reqs[i] != -1) { any = 1; if (__cppe_mpi_req_of(reqs[i], \"MPI_Waitany\")->done) { \
         *index = i; __cppe_mpi_complete(reqs + i, st); return 0; } } \
         if (!any) { *index = -333; __cppe_mpi_null_status(st); if (st) st->MPI_SOURCE = -555; return 0; } \
         p = malloc(3 * n * sizeof(int)); which = malloc(n * sizeof(int)); m = 0; \
         while (1) { int best = -1; int last = m ? __cppe_mpi.reqs[reqs[which[m - 1]]].seq : 0; \
         for (i = 0; i < n; i++) if (reqs[i] != -1 && __cppe_mpi.reqs[reqs[i]].seq > last && \
         (best < 0 || __cppe_mpi.reqs[reqs[i]].seq < __cppe_mpi.reqs[reqs[best]].seq)) best = i; \
         if (best < 0) break; { struct __cppe_mpi_req *q = __cppe_mpi.reqs + reqs[best]; \
         __cppe_mpi_pattern(p + 3 * m, __cppe_mpi_comm_of(q->comm, \"MPI_Waitany\"), q->source, q->tag, \"MPI_Waitany\"); } \
         which[m] = best; m++; } \
         i = which[__cppe_mpi_match(p, m, 1, info)]; free(p); free(which); \
         { struct __cppe_mpi_req *q = __cppe_mpi.reqs + reqs[i]; int got = __cppe_mpi_take(q->buf, q->count * __cppe_mpi_words(q->dt)); \
         __cppe_mpi_finish(__cppe_mpi_comm_of(q->comm, \"MPI_Waitany\"), info, got, &q->st); q->done = 1; } \
         *index = i; __cppe_mpi_complete(reqs + i, st); return 0; }",
    ),
    (
        "MPI_Request_free",
        "int MPI_Request_free(int *req) { __cppe_mpi_req_of(*req, \"MPI_Request_free\")->kind = 0; *req = -1; return 0; }",
    ),
    // ---- collectives (context 4c+1; tag: the collective) ----
    (
        "__cppe_mpi_csend",
        "void __cppe_mpi_csend(const void *buf, int words, struct __cppe_mpi_comm *c, int to, int tag) { \
         __cppe_mpi_send(buf, words, c->ranks ? c->ranks[to] : to, tag, 4 * c->ctx + 1, 0); }",
    ),
    (
        "__cppe_mpi_crecv",
        "void __cppe_mpi_crecv(void *buf, int words, struct __cppe_mpi_comm *c, int from, int tag) { int p[3]; int info[5]; \
         p[0] = c->ranks ? c->ranks[from] : from; p[1] = tag; p[2] = 4 * c->ctx + 1; __cppe_mpi_match(p, 1, 1, info); \
         __cppe_mpi_take(buf, words); }",
    ),
    // Receives one message from each of `n` ranks `from[i]` into `bufs[i]`, in the order
    // they arrive: every receive is posted at once (a linear root's MPI_Irecv and
    // MPI_Waitall).
    (
        "__cppe_mpi_crecv_all",
        "void __cppe_mpi_crecv_all(char **bufs, const int *words, const int *from, int n, struct __cppe_mpi_comm *c, \
         int tag) { int *p = malloc((3 * n + 1) * sizeof(int)); int *which = malloc((n + 1) * sizeof(int)); int m = n; \
         int i; int info[5]; for (i = 0; i < n; i++) { p[3 * i] = c->ranks ? c->ranks[from[i]] : from[i]; \
         p[3 * i + 1] = tag; p[3 * i + 2] = 4 * c->ctx + 1; which[i] = i; } \
         while (m > 0) { int k = __cppe_mpi_match(p, m, 1, info); int j = which[k]; __cppe_mpi_take(bufs[j], words[j]); \
         m--; p[3 * k] = p[3 * m]; p[3 * k + 1] = p[3 * m + 1]; p[3 * k + 2] = p[3 * m + 2]; which[k] = which[m]; } \
         free(p); free(which); }",
    ),
    (
        "MPI_Barrier",
        "int MPI_Barrier(int comm) { struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, \"MPI_Barrier\"); int k; \
         int n = c->size; int r = c->rank; for (k = 1; k < n; k <<= 1) { __cppe_mpi_csend(0, 0, c, (r + k) % n, 1); \
         __cppe_mpi_crecv(0, 0, c, (r - k + n) % n, 1); } return 0; }",
    ),
    (
        "__cppe_mpi_bcast",
        "void __cppe_mpi_bcast(void *buf, int words, int root, struct __cppe_mpi_comm *c) { int n = c->size; \
         int vr = (c->rank - root + n) % n; int mask = 1; \
         while (mask < n) { if (vr & mask) { __cppe_mpi_crecv(buf, words, c, (vr - mask + root) % n, 2); break; } \
         mask <<= 1; } mask >>= 1; \
         while (mask > 0) { if (vr + mask < n) __cppe_mpi_csend(buf, words, c, (vr + mask + root) % n, 2); mask >>= 1; } }",
    ),
    (
        "MPI_Bcast",
        "int MPI_Bcast(void *buf, int count, int dt, int root, int comm) { \
         struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, \"MPI_Bcast\"); __cppe_mpi_world(c, root, \"MPI_Bcast\"); \
         __cppe_mpi_bcast(buf, count * __cppe_mpi_words(dt), root, c); return 0; }",
    ),
    // The binomial reduction of `acc` (n elements) to `root`: on return the root's
    // `acc` holds the result.
    (
        "__cppe_mpi_reduce",
        "void __cppe_mpi_reduce(void *acc, int count, int dt, int op, int root, struct __cppe_mpi_comm *c) { \
         int n = c->size; int vr = (c->rank - root + n) % n; int mask = 1; int words = count * __cppe_mpi_words(dt); \
         void *tmp = malloc((words ? words : 1) * sizeof(char)); \
         while (mask < n) { if ((vr & mask) == 0) { int src = vr | mask; if (src < n) { \
         __cppe_mpi_crecv(tmp, words, c, (src + root) % n, 3); __cppe_mpi_apply(tmp, acc, count, dt, op); } } \
         else { __cppe_mpi_csend(acc, words, c, (vr - mask + root) % n, 3); break; } mask <<= 1; } free(tmp); }",
    ),
    (
        "MPI_Reduce",
        "int MPI_Reduce(const void *sbuf, void *rbuf, int count, int dt, int op, int root, int comm) { \
         struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, \"MPI_Reduce\"); int words = count * __cppe_mpi_words(dt); \
         void *acc; __cppe_mpi_world(c, root, \"MPI_Reduce\"); acc = malloc((words ? words : 1) * sizeof(char)); \
         memcpy(acc, sbuf == (void *)&__cppe_mpi_in_place ? rbuf : sbuf, words); __cppe_mpi_reduce(acc, count, dt, op, root, c); \
         if (c->rank == root) memcpy(rbuf, acc, words); free(acc); return 0; }",
    ),
    (
        "MPI_Allreduce",
        "int MPI_Allreduce(const void *sbuf, void *rbuf, int count, int dt, int op, int comm) { \
         struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, \"MPI_Allreduce\"); int n = c->size; int r = c->rank; \
         int words = count * __cppe_mpi_words(dt); int mask; \
         if (sbuf != (void *)&__cppe_mpi_in_place) memcpy(rbuf, sbuf, words); \
         if ((n & (n - 1)) == 0) { void *tmp = malloc((words ? words : 1) * sizeof(char)); \
         for (mask = 1; mask < n; mask <<= 1) { int peer = r ^ mask; __cppe_mpi_csend(rbuf, words, c, peer, 4); \
         __cppe_mpi_crecv(tmp, words, c, peer, 4); \
         if (peer < r) __cppe_mpi_apply(tmp, rbuf, count, dt, op); \
         else { __cppe_mpi_apply(rbuf, tmp, count, dt, op); memcpy(rbuf, tmp, words); } } free(tmp); } \
         else { __cppe_mpi_reduce(rbuf, count, dt, op, 0, c); __cppe_mpi_bcast(rbuf, words, 0, c); } return 0; }",
    ),
    (
        "MPI_Gatherv",
        "int MPI_Gatherv(const void *sbuf, int scount, int sdt, void *rbuf, const int *rcounts, const int *displs, \
         int rdt, int root, int comm) { struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, \"MPI_Gatherv\"); int i; \
         int rw = __cppe_mpi_words(rdt); __cppe_mpi_world(c, root, \"MPI_Gatherv\"); \
         if (c->rank != root) { __cppe_mpi_csend(sbuf, scount * __cppe_mpi_words(sdt), c, root, 5); return 0; } \
         { char **bufs = malloc(c->size * sizeof(char *)); int *words = malloc(c->size * sizeof(int)); \
         int *from = malloc(c->size * sizeof(int)); int m = 0; \
         for (i = 0; i < c->size; i++) { char *at = (char *)rbuf + displs[i] * rw; \
         if (i == root) { if (sbuf != (void *)&__cppe_mpi_in_place) memcpy(at, sbuf, scount * __cppe_mpi_words(sdt)); } \
         else { bufs[m] = at; words[m] = rcounts[i] * rw; from[m] = i; m++; } } \
         __cppe_mpi_crecv_all(bufs, words, from, m, c, 5); free(bufs); free(words); free(from); } return 0; }",
    ),
    (
        "MPI_Gather",
        "int MPI_Gather(const void *sbuf, int scount, int sdt, void *rbuf, int rcount, int rdt, int root, int comm) { \
         struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, \"MPI_Gather\"); int i; int rw = __cppe_mpi_words(rdt); \
         __cppe_mpi_world(c, root, \"MPI_Gather\"); \
         if (c->rank != root) { __cppe_mpi_csend(sbuf, scount * __cppe_mpi_words(sdt), c, root, 5); return 0; } \
         { char **bufs = malloc(c->size * sizeof(char *)); int *words = malloc(c->size * sizeof(int)); \
         int *from = malloc(c->size * sizeof(int)); int m = 0; \
         for (i = 0; i < c->size; i++) { char *at = (char *)rbuf + i * rcount * rw; \
         if (i == root) { if (sbuf != (void *)&__cppe_mpi_in_place) memcpy(at, sbuf, scount * __cppe_mpi_words(sdt)); } \
         else { bufs[m] = at; words[m] = rcount * rw; from[m] = i; m++; } } \
         __cppe_mpi_crecv_all(bufs, words, from, m, c, 5); free(bufs); free(words); free(from); } return 0; }",
    ),
    (
        "MPI_Scatterv",
        "int MPI_Scatterv(const void *sbuf, const int *scounts, const int *displs, int sdt, void *rbuf, int rcount, \
         int rdt, int root, int comm) { struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, \"MPI_Scatterv\"); int i; \
         int sw = __cppe_mpi_words(sdt); __cppe_mpi_world(c, root, \"MPI_Scatterv\"); \
         if (c->rank != root) { __cppe_mpi_crecv(rbuf, rcount * __cppe_mpi_words(rdt), c, root, 6); return 0; } \
         for (i = 0; i < c->size; i++) { const char *at = (const char *)sbuf + displs[i] * sw; \
         if (i == root) { if (rbuf != (void *)&__cppe_mpi_in_place) memcpy(rbuf, at, scounts[i] * sw); } \
         else __cppe_mpi_csend(at, scounts[i] * sw, c, i, 6); } return 0; }",
    ),
    (
        "MPI_Scatter",
        "int MPI_Scatter(const void *sbuf, int scount, int sdt, void *rbuf, int rcount, int rdt, int root, int comm) { \
         struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, \"MPI_Scatter\"); int i; int sw = __cppe_mpi_words(sdt); \
         __cppe_mpi_world(c, root, \"MPI_Scatter\"); \
         if (c->rank != root) { __cppe_mpi_crecv(rbuf, rcount * __cppe_mpi_words(rdt), c, root, 6); return 0; } \
         for (i = 0; i < c->size; i++) { const char *at = (const char *)sbuf + i * scount * sw; \
         if (i == root) { if (rbuf != (void *)&__cppe_mpi_in_place) memcpy(rbuf, at, scount * sw); } \
         else __cppe_mpi_csend(at, scount * sw, c, i, 6); } return 0; }",
    ),
    (
        "MPI_Allgather",
        "int MPI_Allgather(const void *sbuf, int scount, int sdt, void *rbuf, int rcount, int rdt, int comm) { \
         struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, \"MPI_Allgather\"); int n = c->size; int r = c->rank; int k; \
         int b = rcount * __cppe_mpi_words(rdt); \
         if (sbuf != (void *)&__cppe_mpi_in_place) memcpy((char *)rbuf + r * b, sbuf, scount * __cppe_mpi_words(sdt)); \
         for (k = 0; k < n - 1; k++) { int out = (r - k + n) % n; int in = (r - k - 1 + n) % n; \
         __cppe_mpi_csend((char *)rbuf + out * b, b, c, (r + 1) % n, 7); \
         __cppe_mpi_crecv((char *)rbuf + in * b, b, c, (r - 1 + n) % n, 7); } return 0; }",
    ),
    (
        "MPI_Alltoall",
        "int MPI_Alltoall(const void *sbuf, int scount, int sdt, void *rbuf, int rcount, int rdt, int comm) { \
         struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, \"MPI_Alltoall\"); int n = c->size; int r = c->rank; int k; \
         int sb = scount * __cppe_mpi_words(sdt); int rb = rcount * __cppe_mpi_words(rdt); \
         memcpy((char *)rbuf + r * rb, (const char *)sbuf + r * sb, sb); \
         for (k = 1; k < n; k++) { int to = (r + k) % n; int from = (r - k + n) % n; \
         __cppe_mpi_csend((const char *)sbuf + to * sb, sb, c, to, 8); \
         __cppe_mpi_crecv((char *)rbuf + from * rb, rb, c, from, 8); } return 0; }",
    ),
    (
        "MPI_Scan",
        "int MPI_Scan(const void *sbuf, void *rbuf, int count, int dt, int op, int comm) { \
         struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, \"MPI_Scan\"); int words = count * __cppe_mpi_words(dt); \
         if (sbuf != (void *)&__cppe_mpi_in_place) memcpy(rbuf, sbuf, words); \
         if (c->rank > 0) { void *tmp = malloc((words ? words : 1) * sizeof(char)); \
         __cppe_mpi_crecv(tmp, words, c, c->rank - 1, 9); __cppe_mpi_apply(tmp, rbuf, count, dt, op); free(tmp); } \
         if (c->rank + 1 < c->size) __cppe_mpi_csend(rbuf, words, c, c->rank + 1, 9); return 0; }",
    ),
    // ---- communicators ----
    // A new communicator's context, as SimGrid's SMPI gives one (its `Comm` constructor):
    // the new communicator's rank 0 takes a fresh number from the run's counter and
    // broadcasts it to the other members (a binomial tree over them, in the collective
    // context of the communicator the new one was made from, which `k` still carries).
    (
        "__cppe_mpi_fresh",
        "void __cppe_mpi_fresh(int k) { int ctx = 0; if (__cppe_mpi.comms[k].rank == 0) ctx = __cppe_mpi_context(1); \
         __cppe_mpi_bcast(&ctx, 1, 0, __cppe_mpi.comms + k); __cppe_mpi.comms[k].ctx = ctx; }",
    ),
    (
        "MPI_Comm_dup",
        "int MPI_Comm_dup(int comm, int *out) { struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, \"MPI_Comm_dup\"); \
         int *ranks = 0; int k; \
         if (c->ranks) { ranks = malloc(c->size * sizeof(int)); memcpy(ranks, c->ranks, c->size * sizeof(int)); } \
         k = __cppe_mpi_new_comm(c->ctx, c->size, c->rank, ranks); __cppe_mpi_fresh(k); \
         c = __cppe_mpi_comm_of(comm, \"MPI_Comm_dup\"); \
         if (c->ndims) __cppe_mpi_set_cart(k, c->ndims, c->dims, c->periods); *out = k; return 0; }",
    ),
    (
        "MPI_Comm_free",
        "int MPI_Comm_free(int *comm) { struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(*comm, \"MPI_Comm_free\"); \
         if (*comm < 2) __cppe_mpi_fail(\"MPI_Comm_free\", \"cannot free a predefined communicator\", *comm); \
         free(c->ranks); free(c->dims); free(c->periods); c->size = 0; *comm = -1; return 0; }",
    ),
    // SMPI's algorithm: the colours and keys gathered at rank 0, which sends each member
    // of each colour its new communicator's members (in key order, ties by old rank),
    // one message per member; then each new communicator agrees on its context.
    (
        "MPI_Comm_split",
        "int MPI_Comm_split(int comm, int color, int key, int *out) { \
         struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, \"MPI_Comm_split\"); int n = c->size; int i; int j; \
         int m = 0; int mine[2]; int *all = 0; int *ranks = malloc((n + 1) * sizeof(int)); int me = 0; int k; \
         if (color < 0 && color != -333) __cppe_mpi_fail(\"MPI_Comm_split\", \"invalid color\", color); \
         mine[0] = color; mine[1] = key; if (c->rank == 0) all = malloc(2 * n * sizeof(int)); \
         MPI_Gather(mine, 2, 7, all, 2, 7, 0, comm); c = __cppe_mpi_comm_of(comm, \"MPI_Comm_split\"); \
         if (c->rank == 0) { int *g = malloc((n + 1) * sizeof(int)); \
         for (i = 0; i < n; i++) { int col = all[2 * i]; if (col == -333 || col == -1) continue; g[0] = 0; \
         for (j = i; j < n; j++) if (all[2 * j] == col) { int q = ++g[0]; \
         while (q > 1 && all[2 * j + 1] < all[2 * g[q - 1] + 1]) { g[q] = g[q - 1]; q--; } g[q] = j; \
         if (j > i) all[2 * j] = -1; } \
         for (j = 1; j <= g[0]; j++) if (g[j] == 0) memcpy(ranks, g, (g[0] + 1) * sizeof(int)); \
         else __cppe_mpi_csend(g, g[0] + 1, c, g[j], 11); } free(g); free(all); } \
         else if (color != -333) __cppe_mpi_crecv(ranks, n + 1, c, 0, 11); \
         if (color == -333) { free(ranks); *out = -1; return 0; } \
         m = ranks[0]; for (i = 0; i < m; i++) { ranks[i] = ranks[i + 1]; if (ranks[i] == c->rank) me = i; \
         if (c->ranks) ranks[i] = c->ranks[ranks[i]]; } \
         k = __cppe_mpi_new_comm(c->ctx, m, me, ranks); __cppe_mpi_fresh(k); *out = k; return 0; }",
    ),
    // ---- Cartesian topologies (row-major: the last dimension varies fastest) ----
    (
        "__cppe_mpi_set_cart",
        "void __cppe_mpi_set_cart(int k, int nd, const int *dims, const int *periods) { int i; \
         struct __cppe_mpi_comm *c = __cppe_mpi.comms + k; c->ndims = nd; c->dims = malloc(nd * sizeof(int)); \
         c->periods = malloc(nd * sizeof(int)); for (i = 0; i < nd; i++) { c->dims[i] = dims[i]; \
         c->periods[i] = periods[i] != 0; } }",
    ),
    (
        "MPI_Cart_create",
        "int MPI_Cart_create(int comm, int nd, const int *dims, const int *periods, int reorder, int *out) { \
         struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, \"MPI_Cart_create\"); int i; int p = 1; int *ranks = 0; int k; \
         for (i = 0; i < nd; i++) { if (dims[i] <= 0) __cppe_mpi_fail(\"MPI_Cart_create\", \"invalid dimension\", dims[i]); \
         p *= dims[i]; } if (p > c->size) __cppe_mpi_fail(\"MPI_Cart_create\", \"more processes than the communicator has:\", p); \
         if (c->rank >= p) { *out = -1; return 0; } \
         if (c->ranks) { ranks = malloc(p * sizeof(int)); memcpy(ranks, c->ranks, p * sizeof(int)); } \
         k = __cppe_mpi_new_comm(c->ctx, p, c->rank, ranks); __cppe_mpi_fresh(k); __cppe_mpi_set_cart(k, nd, dims, periods); \
         *out = k; return 0; }",
    ),
    (
        "__cppe_mpi_cart_of",
        "struct __cppe_mpi_comm *__cppe_mpi_cart_of(int comm, const char *f) { \
         struct __cppe_mpi_comm *c = __cppe_mpi_comm_of(comm, f); \
         if (!c->ndims) __cppe_mpi_fail(f, \"not a Cartesian communicator:\", comm); return c; }",
    ),
    (
        "MPI_Cart_coords",
        "int MPI_Cart_coords(int comm, int rank, int maxdims, int *coords) { \
         struct __cppe_mpi_comm *c = __cppe_mpi_cart_of(comm, \"MPI_Cart_coords\"); int i; \
         if (rank < 0 || rank >= c->size) __cppe_mpi_fail(\"MPI_Cart_coords\", \"invalid rank\", rank); \
         for (i = c->ndims - 1; i >= 0; i--) { if (i < maxdims) coords[i] = rank % c->dims[i]; rank /= c->dims[i]; } \
         return 0; }",
    ),
    (
        "MPI_Cart_rank",
        "int MPI_Cart_rank(int comm, const int *coords, int *rank) { \
         struct __cppe_mpi_comm *c = __cppe_mpi_cart_of(comm, \"MPI_Cart_rank\"); int i; int r = 0; \
         for (i = 0; i < c->ndims; i++) { int x = coords[i]; int d = c->dims[i]; \
         if (c->periods[i]) x = ((x % d) + d) % d; \
         else if (x < 0 || x >= d) __cppe_mpi_fail(\"MPI_Cart_rank\", \"coordinate out of range:\", x); \
         r = r * d + x; } *rank = r; return 0; }",
    ),
    (
        "MPI_Cart_shift",
        "int MPI_Cart_shift(int comm, int dir, int disp, int *src, int *dst) { \
         struct __cppe_mpi_comm *c = __cppe_mpi_cart_of(comm, \"MPI_Cart_shift\"); int i; int stride = 1; int x; int d; \
         int k; if ((unsigned)dir >= (unsigned)c->ndims) __cppe_mpi_fail(\"MPI_Cart_shift\", \"invalid direction\", dir); \
         for (i = c->ndims - 1; i > dir; i--) stride *= c->dims[i]; d = c->dims[dir]; x = c->rank / stride % d; \
         for (k = 0; k < 2; k++) { int y = k ? x + disp : x - disp; int *to = k ? dst : src; \
         if (c->periods[dir]) { y %= d; if (y < 0) y += d; } \
         *to = y < 0 || y >= d ? -666 : c->rank + (y - x) * stride; } return 0; }",
    ),
    (
        "MPI_Cart_get",
        "int MPI_Cart_get(int comm, int maxdims, int *dims, int *periods, int *coords) { \
         struct __cppe_mpi_comm *c = __cppe_mpi_cart_of(comm, \"MPI_Cart_get\"); int i; \
         for (i = 0; i < c->ndims && i < maxdims; i++) { dims[i] = c->dims[i]; periods[i] = c->periods[i]; } \
         MPI_Cart_coords(comm, c->rank, maxdims, coords); return 0; }",
    ),
    (
        "MPI_Cartdim_get",
        "int MPI_Cartdim_get(int comm, int *nd) { *nd = __cppe_mpi_cart_of(comm, \"MPI_Cartdim_get\")->ndims; return 0; }",
    ),
    // Balanced factors, non-increasing (MPICH's result for the common cases): each
    // prime factor of what is left, largest first, multiplies the free dimension with
    // the smallest product so far.
    (
        "MPI_Dims_create",
        "int MPI_Dims_create(int nnodes, int nd, int *dims) { int i; int left = nnodes; int f; int nfree = 0; \
         int pr[64]; int np = 0; for (i = 0; i < nd; i++) { if (dims[i] < 0) \
         __cppe_mpi_fail(\"MPI_Dims_create\", \"negative dimension\", dims[i]); if (dims[i] > 0) { \
         if (left % dims[i]) __cppe_mpi_fail(\"MPI_Dims_create\", \"a given dimension does not divide the nodes:\", dims[i]); \
         left /= dims[i]; } else nfree++; } \
         if (!nfree) { if (left != 1) __cppe_mpi_fail(\"MPI_Dims_create\", \"the dimensions do not multiply to\", nnodes); \
         return 0; } \
         for (f = 2; f * f <= left; f++) while (left % f == 0) { pr[np++] = f; left /= f; } if (left > 1) pr[np++] = left; \
         for (i = 0; i < nd; i++) if (dims[i] == 0) dims[i] = -1; \
         while (np > 0) { int p = pr[--np]; int best = -1; for (i = 0; i < nd; i++) if (dims[i] < 0 && \
         (best < 0 || -dims[i] < -dims[best])) best = i; dims[best] *= p; } \
         for (i = 0; i < nd; i++) if (dims[i] < 0) dims[i] = -dims[i]; \
         { int a; int b; for (a = 0; a < nd; a++) for (b = a + 1; b < nd; b++) if (dims[b] > dims[a]) { \
         int t = dims[a]; dims[a] = dims[b]; dims[b] = t; } } return 0; }",
    ),
];

/// The C types of the datatypes, by the `MPI_*` numbers `<mpi.h>` defines: `(numbers,
/// C type, integer)`. Pairs (`MPI_2INT` …) are their value type then an int.
const TYPES: &[(&[u32], &str, bool)] = &[
    (&[1, 2], "char", true),
    (&[3, 4], "unsigned char", true),
    (&[5], "short", true),
    (&[6], "unsigned short", true),
    (&[7, 16], "int", true),
    (&[8], "unsigned int", true),
    (&[9, 11], "long", true),
    (&[10, 12], "unsigned long", true),
    (&[13], "float", false),
    (&[14, 15], "double", false),
];

/// Pair types for MAXLOC and MINLOC: (number, value type).
const PAIRS: &[(u32, &str)] = &[(20, "int"), (21, "float"), (22, "double"), (23, "long"), (24, "short")];

/// `__cppe_mpi_apply(in, inout, n, dt, op)`: `inout[i] = in[i] op inout[i]` for the
/// `MPI_*` datatype and operation numbers of `<mpi.h>`.
fn apply_source() -> &'static str {
    static SRC: OnceLock<String> = OnceLock::new();
    SRC.get_or_init(|| {
        let mut s = String::from("void __cppe_mpi_apply(const void *a, void *b, int n, int dt, int op) { int i; ");
        for (nums, ty, integer) in TYPES {
            let cond: Vec<String> = nums.iter().map(|k| format!("dt == {k}")).collect();
            s.push_str(&format!("if ({}) {{ const {ty} *x = a; {ty} *y = b; for (i = 0; i < n; i++) {{ ", cond.join(" || ")));
            s.push_str("switch (op) { case 1: if (x[i] > y[i]) y[i] = x[i]; break; case 2: if (x[i] < y[i]) y[i] = x[i]; break; ");
            s.push_str("case 3: y[i] = x[i] + y[i]; break; case 4: y[i] = x[i] * y[i]; break; ");
            s.push_str("case 5: y[i] = x[i] && y[i]; break; case 7: y[i] = x[i] || y[i]; break; ");
            s.push_str("case 9: y[i] = !x[i] != !y[i]; break; ");
            if *integer {
                s.push_str(
                    "case 6: y[i] = x[i] & y[i]; break; case 8: y[i] = x[i] | y[i]; break; \
                     case 10: y[i] = x[i] ^ y[i]; break; ",
                );
            }
            s.push_str("default: __cppe_mpi_fail(\"MPI_Reduce\", \"an operation that does not apply to the datatype:\", op); } } return; } ");
        }
        for (num, ty) in PAIRS {
            s.push_str(&format!(
                "if (dt == {num}) {{ const {ty} *xv = a; {ty} *yv = b; const int *xi = a; int *yi = b; for (i = 0; i < n; i++) {{ \
                 int k = 2 * i; if (op == 11 || op == 12) {{ int better = op == 11 ? xv[k] > yv[k] : xv[k] < yv[k]; \
                 if (better) {{ yv[k] = xv[k]; yi[k + 1] = xi[k + 1]; }} else if (xv[k] == yv[k] && xi[k + 1] < yi[k + 1]) \
                 yi[k + 1] = xi[k + 1]; }} else __cppe_mpi_fail(\"MPI_Reduce\", \"only MAXLOC and MINLOC apply to pairs, not\", op); }} \
                 return; }} "
            ));
        }
        s.push_str("__cppe_mpi_fail(\"MPI_Reduce\", \"unknown datatype\", dt); }");
        s
    })
}

/// The C source of MPI library function `name`.
pub(super) fn source(name: &str) -> Option<&'static str> {
    if name == "__cppe_mpi_apply" {
        return Some(apply_source());
    }
    MPI_LIBRARY.iter().find(|(n, _)| *n == name).map(|(_, src)| *src)
}

/// Every MPI library name.
pub(super) fn names() -> impl Iterator<Item = &'static str> + 'static {
    MPI_LIBRARY.iter().map(|(n, _)| *n).chain(std::iter::once("__cppe_mpi_apply"))
}

#[cfg(test)]
mod tests {
    /// Every MPI library function compiles as a program's own would, with `<mpi.h>`
    /// (whose types they use) and the headers of what they call.
    #[test]
    fn every_mpi_library_function_compiles() {
        let opts = crate::lang::FrontOptions::default();
        for name in super::names() {
            let src = super::source(name).unwrap_or_default();
            let text = format!(
                "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <mpi.h>\n{src}\n\
                 int main(void) {{ return 0; }}\n"
            );
            if let Err(e) = crate::lang::compile("lib.c", &text, &opts) {
                panic!("MPI library function {name}:\n{e}");
            }
        }
    }
}
