// What every test target shares (`ChildProcess`, seeded random numbers), in every file of
// this one.
@_exported import TestSupport
