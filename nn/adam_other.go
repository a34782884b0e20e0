//go:build !amd64 || purego

package nn

// adamUpdate is adamGo.
func adamUpdate(w, g, m, v []float32, k *adamConsts) { adamGo(w, g, m, v, k) }
