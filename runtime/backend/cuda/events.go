package cuda

// eventPool recycles the plane's CUDA events. The plane records several
// for every op and copy (the last use of each buffer, each staging
// buffer's copy, the spans it measures); re-recording a spare event is
// one driver call where a fresh one is three (create, record, destroy).
// Reuse is safe once nobody queries the event's old recording: a stream
// wait, like the fake's, keeps what the event captured when the wait was
// made.
type eventPool struct {
	rt    Runtime
	spare []Event
}

// record is an event capturing s's work so far.
func (p *eventPool) record(s Stream) (Event, error) {
	var e Event
	if n := len(p.spare); n > 0 {
		e, p.spare = p.spare[n-1], p.spare[:n-1]
	} else {
		var err error
		if e, err = p.rt.EventCreate(); err != nil {
			return 0, err
		}
	}
	if err := p.rt.EventRecord(e, s); err != nil {
		p.put(e)
		return 0, err
	}
	return e, nil
}

// put takes e back for reuse (0: none).
func (p *eventPool) put(e Event) {
	if e != 0 {
		p.spare = append(p.spare, e)
	}
}

// close destroys the spare events.
func (p *eventPool) close() error {
	var first error
	for _, e := range p.spare {
		if err := p.rt.EventDestroy(e); err != nil && first == nil {
			first = err
		}
	}
	p.spare = nil
	return first
}
