package sim

import "math/rand"

// Rand is a process's share of the world's randomness: it draws numbers
// and does nothing else. Every draw comes from the one generator the
// world's seed started, the same that decides message delays, losses,
// torn writes and the order of simultaneous events, so a process's draws
// are part of the run the seed replays, and different seeds draw
// differently.
//
// Rand offers no way to reseed the generator or to replace it: a node that
// could reseed it would decide every delay and every tear that follows, for
// every node, and every seed would replay the one world it chose. The
// methods are math/rand's, with its meanings.
type Rand struct{ r *rand.Rand }

// Int returns a non-negative int.
func (r *Rand) Int() int { return r.r.Int() }

// Intn returns an int in [0, n). It panics if n <= 0.
func (r *Rand) Intn(n int) int { return r.r.Intn(n) }

// Int31 returns a non-negative int32.
func (r *Rand) Int31() int32 { return r.r.Int31() }

// Int31n returns an int32 in [0, n). It panics if n <= 0.
func (r *Rand) Int31n(n int32) int32 { return r.r.Int31n(n) }

// Int63 returns a non-negative int64.
func (r *Rand) Int63() int64 { return r.r.Int63() }

// Int63n returns an int64 in [0, n). It panics if n <= 0.
func (r *Rand) Int63n(n int64) int64 { return r.r.Int63n(n) }

// Uint32 returns a uint32.
func (r *Rand) Uint32() uint32 { return r.r.Uint32() }

// Uint64 returns a uint64.
func (r *Rand) Uint64() uint64 { return r.r.Uint64() }

// Float32 returns a float32 in [0.0, 1.0).
func (r *Rand) Float32() float32 { return r.r.Float32() }

// Float64 returns a float64 in [0.0, 1.0).
func (r *Rand) Float64() float64 { return r.r.Float64() }

// NormFloat64 returns a normally distributed float64 (mean 0, standard
// deviation 1).
func (r *Rand) NormFloat64() float64 { return r.r.NormFloat64() }

// ExpFloat64 returns an exponentially distributed float64 (rate 1).
func (r *Rand) ExpFloat64() float64 { return r.r.ExpFloat64() }

// Perm returns a permutation of the ints [0, n).
func (r *Rand) Perm(n int) []int { return r.r.Perm(n) }

// Shuffle shuffles n elements: swap swaps the elements at i and j.
func (r *Rand) Shuffle(n int, swap func(i, j int)) { r.r.Shuffle(n, swap) }
