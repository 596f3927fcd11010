package eval

import "github.com/tref-lang/tref/lang/ast"

// Variable access on frames. Slots of cell variables hold a *cell; every
// other slot and every global holds the value itself (nil: no value).

func (fr *frame) unset(pos ast.Pos, name string) error {
	return fr.errorf(pos, "%q has no value here (it was deleted, or its declaration has not run yet)", name)
}

// cellAt returns the cell of a captured variable.
func (fr *frame) cellAt(l varLoc) *cell {
	switch l.kind {
	case locCell:
		c, _ := fr.slots[l.idx].(*cell)
		if c == nil {
			c = newCell(nil, fr.th.col)
			fr.slots[l.idx] = c
		}
		return c
	case locFree:
		return fr.cl.cells[l.idx]
	}
	return nil
}

// load returns a new reference to the variable's value.
func (fr *frame) load(l varLoc, pos ast.Pos) (Value, error) {
	var v Value
	switch l.kind {
	case locSlot:
		v = fr.slots[l.idx]
	case locGlobal:
		v = fr.mod.globals[l.idx]
	default:
		v = fr.cellAt(l).v
	}
	if v == nil {
		return nil, fr.unset(pos, l.name)
	}
	Retain(fr.th.RT, v)
	return v, nil
}

// take moves the value out of a variable at its last use.
func (fr *frame) take(l varLoc, pos ast.Pos) (Value, error) {
	var v Value
	switch l.kind {
	case locSlot:
		v = fr.slots[l.idx]
		fr.slots[l.idx] = nil
	case locGlobal:
		v = fr.mod.globals[l.idx]
		fr.mod.globals[l.idx] = nil
	default:
		return fr.load(l, pos)
	}
	if v == nil {
		return nil, fr.unset(pos, l.name)
	}
	return v, nil
}

// declare binds a new variable of this frame (or a global) to an owned
// value; v may be nil for a cell that is filled later.
func (fr *frame) declare(l varLoc, v Value) {
	var old Value
	switch l.kind {
	case locSlot:
		old, fr.slots[l.idx] = fr.slots[l.idx], v
	case locCell:
		old, fr.slots[l.idx] = fr.slots[l.idx], newCell(v, fr.th.col)
	case locGlobal:
		old, fr.mod.globals[l.idx] = fr.mod.globals[l.idx], v
	case locFree:
		fr.cl.cells[l.idx].set(fr.th.RT, v)
	}
	if old != nil {
		Release(fr.th.RT, old)
	}
}

// store assigns an owned value to an existing variable.
func (fr *frame) store(l varLoc, v Value, pos ast.Pos) error {
	var old Value
	switch l.kind {
	case locSlot:
		old, fr.slots[l.idx] = fr.slots[l.idx], v
	case locGlobal:
		old, fr.mod.globals[l.idx] = fr.mod.globals[l.idx], v
	default:
		fr.cellAt(l).set(fr.th.RT, v)
	}
	if old != nil {
		Release(fr.th.RT, old)
	}
	return nil
}

// clear drops the variable's value (del, or a dead store).
func (fr *frame) clear(l varLoc) {
	var old Value
	switch l.kind {
	case locSlot:
		old, fr.slots[l.idx] = fr.slots[l.idx], nil
	case locGlobal:
		old, fr.mod.globals[l.idx] = fr.mod.globals[l.idx], nil
	default:
		fr.cellAt(l).set(fr.th.RT, nil)
	}
	if old != nil {
		Release(fr.th.RT, old)
	}
}

// drop releases variables that died on a control-flow edge.
func (fr *frame) drop(ls []varLoc) {
	for _, l := range ls {
		fr.clear(l)
	}
}

// clearSlots releases the slots of a block that ended.
func (fr *frame) clearSlots(slots []int) {
	for _, i := range slots {
		if v := fr.slots[i]; v != nil {
			fr.slots[i] = nil
			Release(fr.th.RT, v)
		}
	}
}
