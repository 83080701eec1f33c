// Package stash is a lock-free hierarchical slot store: the data structure
// underneath stash's timer wheel.
//
// Many producers Add values keyed by an unsigned integer (a deadline in
// nanoseconds, for the wheel) without ever taking a lock or waiting on each
// other. Exactly one consumer walks the key window in order (Walk), looks
// ahead without consuming (Peep) and reclaims what the walk has passed
// (Clean).
//
// # Geometry
//
// A Store is a radix tree of levels, coarsest first. Level i maps a key k to
// slot (k / Div_i) % Mod_i, and each level's span Div_i*Mod_i is the Div of
// the level above, so the levels nest exactly. The finest level's Div is the
// width of a bucket; a bucket is an append-only leaf. DefaultLevels, the
// geometry the timer wheel uses for nanosecond keys, is:
//
//	level  Div      slot width   Mod  level span
//	0      2^47 ns  39.1 hours   512  2.28 years (the wheel's span)
//	1      2^38 ns  4.6 minutes  512  39.1 hours
//	2      2^29 ns  537 ms       512  4.6 minutes
//	3      2^20 ns  1.05 ms      512  537 ms (buckets of 1.05 ms)
//
// Only touched slots exist: a level's slot array is allocated Chunk slots at
// a time, and a leaf grows by segments that start at LeafChunk slots (inside
// the leaf itself) and double up to 61, all published with CAS, so memory is
// proportional to what is live, not to span / bucket width.
//
// # Invariants
//
//   - One consumer. Walk, Peep and Clean run on one goroutine at a time; a
//     second concurrent consumer panics.
//   - Producers never block. Add reserves a leaf slot with an atomic
//     increment and fills it; the only other shared writes are CASes on the
//     valid-key bounds and on slots that are still empty.
//   - The sentinel frontier. A reserved slot reads as a sentinel until its
//     value is stored. The walk never steps past a sentinel, and caps
//     FirstValid at that bucket (the pending floor), so reclamation never
//     crosses a leaf that a producer is still filling.
//   - Late inserts. A key below FirstValid lowers FirstValid to itself
//     before its value is published, and again after if a walk raced past
//     it, so the next walk finds it. A walk raises FirstValid to its end
//     before it reads anything, so a producer that publishes behind a walk
//     in progress always sees its key as late.
//   - Clean below FirstValid, with no time margin. Everything strictly below
//     FirstValid has been walked. A producer that raced into a subtree while
//     Clean detached it finds the subtree detached after publishing and
//     takes its value back (a CAS on its own slot) to add it again; Clean
//     salvages what such a producer left when FirstValid moved back under
//     the subtree. No value is lost and none is returned twice.
//   - Never early, never aliased. Every node records the first key it
//     covers. A key at or beyond FirstValid + span (less HorizonMargin), or
//     one whose path is still held by a subtree of another revolution, waits
//     in the overflow area and enters the tree when a walk reaches it; the
//     walk skips nodes of other revolutions, walks a window longer than the
//     span in steps, and yields in key order, straight from the overflow
//     area, a late value whose top-level slot a later revolution holds.
//   - A slot changes only from the sentinel to a value, and from a value to
//     empty, each by one CAS or store. Whoever empties a value owns it: the
//     walk (which returns it), a producer taking it back from a detached
//     subtree, Clean's salvage, or Remove (the owner of a Ref withdrawing
//     it before the walk comes). Empty slots are never reused.
//   - Insertion order within a bucket. A leaf is append-only, so values at
//     one key come out in the order their slots were reserved: a value
//     added after another's Add returned comes after it. Two paths file a
//     value after its Add returned, and a value at its key that goes
//     straight into the tree meanwhile may come first: the overflow area,
//     whose values enter the tree at a drain (a walk moves the horizon
//     before it drains), and Clean's salvage of a late value. Keeping the
//     order there too would send every producer to the overflow area while
//     a drain runs; no timer needs it (time orders nothing among equal
//     deadlines), and only keys behind FirstValid or near the far end of
//     the span take either path.
//   - Compaction ahead of the walk. Compact unlinks a leaf segment only when
//     every slot in it is empty, never the walk's segment nor the newest, so
//     no producer can still write there; the walk steps over the gap.
//
// # For a consumer that batches
//
// A walk stopped early, or parked at a reserved slot, leaves StopFloor, a
// lower bound of the keys it has not returned yet (each leaf keeps the
// lowest key ever added to it), so a consumer may act on what it collected
// below that bound in key order.
// NextBucket finds the first bucket with anything the walk has not passed,
// emptied slots included, so a consumer can sleep until then, and Backlog
// tells how many slots of a bucket the walk has yet to read, so a consumer
// can start early on a big one. A consumer whose producers Remove most of
// what they add calls Compact now and then.
package stash
