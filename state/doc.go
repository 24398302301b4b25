// Package state is botgw.Store on Redis (go-redis), with an embedded
// in-process Redis (miniredis) as the zero-config default.
//
// # Key layout
//
// Every key of one chat carries the chat key as its hash tag, so each
// per-chat Lua script touches one Redis Cluster slot:
//
//	<prefix>:{<chat>}:state    hash {v: version, b: blob, e: expiry (unix ms), l: the
//	                           token of the worker that began last (see below), r: the
//	                           chat's send pace, and the chat list's p: preview,
//	                           a: activity, u: paused until, i: score in the chat
//	                           list}; PEXPIRE = the commit's TTL, refreshed by
//	                           commits (sliding expiry)
//	<prefix>:{<chat>}:pending  list of JSON botgw.Inbound, no TTL: input is never lost
//	<prefix>:{<chat>}:outbox   list of JSON botgw.Outbound, no TTL
//	<prefix>:{<chat>}:lease    the worker's token, PX LeaseTTL
//	<prefix>:{<chat>}:id:<id>  an inbound id's dedupe record: its arrival (unix ms),
//	                           SET NX PX DedupeTTL by Append
//
// A commit is fenced by the worker's lease: it is refused once another
// worker has begun on the chat. Begin writes its holder's token into the
// state hash ("l") as it takes the lease, and Commit compares it in the
// same HMGET that reads the version, so a turn's commit needs no read of
// the lease key. The lease key still decides who may begin; the token in
// the hash only tells Commit whether anyone did since. A worker whose
// lease expired unclaimed may still commit: nobody else read the chat in
// between. A chat with no state yet has no hash to hold a token, and its
// first commit reads the lease key.
//
// The chat list (ChatIndex) is one zset in its own slot, scored by activity:
//
//	<prefix>:chats:{chats}     member: chat key; score: unix ms of the chat's
//	                           last activity, lagging it by at most a second
//
// Work is signalled through 16 zsets shared by all chats, a delay queue with
// a visibility timeout (as in SQS):
//
//	<prefix>:work:{<n>}        member: chat key; score: unix ms at which other
//	                           replicas may take the chat; n = fnv32a(chat) % 16
//
// Append adds a chat's mark one visibility timeout ahead: the replica that
// took the input normally handles it at once, and the mark matters only if
// that replica dies. Due hands out marks whose time has come and pushes them
// one timeout further, so one replica claims each; Finish clears the mark
// when the chat is idle. The 16 shards spread the queue over cluster slots.
//
//	<prefix>:once:{<name>}     Once keys, SET NX PX
//	<prefix>:ready:{<n>}       Writable's probe, in the slot of work shard n, PX 10s
//
// On a single node Append writes the input and the work mark in one script,
// so an error means nothing was stored. On a cluster the mark goes second;
// Repair (every RepairInterval, RunRepair) marks chats that have pending
// input or an outbox but no mark. There Finish parks the mark (due after
// the worker's lease) before its script and settles it after, so a worker
// that dies in between leaves its chat due, not unmarked.
//
// Scripts (lua/*.lua) are loaded when the store opens and run with EVALSHA;
// times are passed in from Go, never read from the server's clock.
package state
