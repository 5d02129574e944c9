package defs

// ReleaseModules drops the modules the behaviour whose root LoadProto
// returned has loaded, when a reload replaced it. (A reload needs no
// forgetting first: each load gets globals of its own, so its requires run
// the modules afresh; other mods keep theirs.)
func (vm *VM) ReleaseModules(root *State) {
	if root != nil && root.env != nil {
		vm.DropModules(root.env)
	}
}

// ModulesOf lists the files of the modules the behaviour whose root
// LoadProto returned has loaded by require (its own, not other mods'),
// sorted.
func (vm *VM) ModulesOf(root *State) []string {
	if root == nil {
		return nil
	}
	return vm.ModulesIn(root.env)
}
