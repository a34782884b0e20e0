//go:build !purego

package nn

//go:noescape
func adamAVX2(w, g, m, v []float32, k *adamConsts)

// adamUpdate is adamGo, in AVX2 assembly for the multiples of eight
// values where the CPU has it.
func adamUpdate(w, g, m, v []float32, k *adamConsts) {
	if haveAVX2 {
		n := len(w) &^ 7
		adamAVX2(w[:n], g[:n], m[:n], v[:n], k)
		w, g, m, v = w[n:], g[n:], m[n:], v[n:]
	}
	adamGo(w, g, m, v, k)
}
