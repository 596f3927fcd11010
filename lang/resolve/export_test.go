package resolve

// TorchNames are torchNames' entries, for the tests.
var TorchNames = torchNames
