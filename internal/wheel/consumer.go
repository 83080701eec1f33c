package wheel

// The consumer role. One goroutine at a time walks the store, fires from
// the near heap, cleans and compacts: the holder of the consumer role
// (Wheel.consumer). The driver takes it for each round of work and gives it
// up before it sleeps; Close takes it for good, so that no pass runs on a
// closed wheel.

// acquire takes the consumer role for the driver.
func (d *driver) acquire() { d.w.consumer.Lock() }

// release gives up the consumer role.
func (d *driver) release() { d.w.consumer.Unlock() }
