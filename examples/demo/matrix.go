package main

import (
	"fmt"
	"time"
)

const matrixSize = 96

type matrix [matrixSize][matrixSize]float64

// matrixWorker multiplies two fixed matrices until deadline and checks the product against a
// value computed in closed form.
func matrixWorker(deadline time.Time) report {
	a, b, c := new(matrix), new(matrix), new(matrix)
	for i := range matrixSize {
		for j := range matrixSize {
			a[i][j] = float64(i + 1)
			b[i][j] = float64(j + 1)
		}
	}
	// c[i][j] = Σk (i+1)(j+1) = n(i+1)(j+1), exact in float64 at this size.
	want := float64(matrixSize * matrixSize * matrixSize)
	r := report{unit: "96x96 matrix multiplies"}
	for time.Now().Before(deadline) {
		multiplyMatrices(c, a, b)
		if got := c[matrixSize-1][matrixSize-1]; got != want {
			r.err = fmt.Errorf("product corner is %v, want %v", got, want)
			return r
		}
		r.ops++
		r.checksum = r.checksum*31 + uint64(c[r.ops%matrixSize][0])
	}
	return r
}

// multiplyMatrices sets c = a×b with the textbook triple loop (i, k, j order, so the inner loop
// walks rows).
func multiplyMatrices(c, a, b *matrix) {
	for i := range matrixSize {
		row := &c[i]
		*row = [matrixSize]float64{}
		for k := range matrixSize {
			aik := a[i][k]
			for j := range matrixSize {
				row[j] += aik * b[k][j]
			}
		}
	}
}
