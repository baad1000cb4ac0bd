package main

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

type record struct {
	key   uint32
	id    int
	score float64
}

const recordsPerSort = 20000

// sortWorker shuffles and sorts a slice of records by (key, id) until deadline, checking each
// result.
func sortWorker(deadline time.Time) report {
	rng := rand.New(rand.NewPCG(3, 4))
	records := make([]record, recordsPerSort)
	for i := range records {
		records[i] = record{key: rng.Uint32() % 5000, id: i, score: rng.Float64()}
	}
	r := report{unit: "sorts of 20000 records"}
	for time.Now().Before(deadline) {
		rng.Shuffle(len(records), func(i, j int) { records[i], records[j] = records[j], records[i] })
		sortRecords(records)
		if !slices.IsSortedFunc(records, compareRecords) {
			r.err = fmt.Errorf("records not sorted")
			return r
		}
		r.ops++
		r.checksum = r.checksum*31 + uint64(records[len(records)/2].id)
	}
	return r
}

func sortRecords(records []record) { slices.SortFunc(records, compareRecords) }

func compareRecords(a, b record) int {
	if c := cmp.Compare(a.key, b.key); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}
