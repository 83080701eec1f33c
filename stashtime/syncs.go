package stashtime

// The driver answers Wheel.Sync: takeSyncs takes the waiting Syncs at the
// start of a round, with the clock reading then, and replySyncs releases
// them once nothing due at that reading is left.

// takeSyncs takes the Syncs waiting since the last round.
func (d *driver) takeSyncs() {
	w := d.w
	w.syncMu.Lock()
	if len(w.syncs) > 0 {
		d.syncAt = w.now()
	}
	d.syncs = append(d.syncs, w.syncs...)
	clear(w.syncs)
	w.syncs = w.syncs[:0]
	w.syncMu.Unlock()
}

// replySyncs releases the Syncs taken.
func (d *driver) replySyncs() {
	for i, ch := range d.syncs {
		close(ch)
		d.syncs[i] = nil
	}
	d.syncs = d.syncs[:0]
}
