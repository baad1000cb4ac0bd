package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"
)

// An order is a small nested document, the kind of thing a service encodes all day.
type order struct {
	ID       int64      `json:"id"`
	Customer string     `json:"customer"`
	Items    []lineItem `json:"items"`
	Paid     bool       `json:"paid"`
	Notes    []string   `json:"notes,omitempty"`
}

type lineItem struct {
	SKU      string  `json:"sku"`
	Quantity int     `json:"quantity"`
	Price    float64 `json:"price"`
}

const ordersPerBatch = 100

// jsonWorker encodes a batch of orders to JSON and decodes it back until deadline, checking
// that the round trip preserves the batch.
func jsonWorker(deadline time.Time) report {
	orders := makeOrders(rand.New(rand.NewPCG(1, 2)), ordersPerBatch)
	r := report{unit: "round trips of 100 orders"}
	for time.Now().Before(deadline) {
		data, err := encodeOrders(orders)
		if err != nil {
			r.err = err
			return r
		}
		back, err := decodeOrders(data)
		if err != nil {
			r.err = err
			return r
		}
		if len(back) != len(orders) || back[len(back)-1].ID != orders[len(orders)-1].ID {
			r.err = fmt.Errorf("round trip returned %d orders, want %d", len(back), len(orders))
			return r
		}
		r.ops++
		r.checksum = r.checksum*31 + uint64(len(data))
	}
	return r
}

func encodeOrders(orders []order) ([]byte, error) { return json.Marshal(orders) }

func decodeOrders(data []byte) ([]order, error) {
	var orders []order
	err := json.Unmarshal(data, &orders)
	return orders, err
}

func makeOrders(rng *rand.Rand, n int) []order {
	orders := make([]order, n)
	for i := range orders {
		o := &orders[i]
		o.ID = int64(1000 + i)
		o.Customer = fmt.Sprintf("customer-%04d", rng.IntN(10000))
		o.Paid = rng.IntN(2) == 0
		for range 1 + rng.IntN(5) {
			o.Items = append(o.Items, lineItem{
				SKU:      fmt.Sprintf("SKU-%06d", rng.IntN(1000000)),
				Quantity: 1 + rng.IntN(9),
				Price:    float64(rng.IntN(100000)) / 100,
			})
		}
		if rng.IntN(4) == 0 {
			o.Notes = []string{"leave at the door", "fragile"}
		}
	}
	return orders
}
