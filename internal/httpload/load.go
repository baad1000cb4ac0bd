// Package httpload drives bounded HTTP load at a server: a fixed number of workers, each with
// its own keep-alive connection, for a fixed time, every response's status and length checked.
// The VM tests and cmd/netcompare measure guest servers with it.
package httpload

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Result is what a run measured.
type Result struct {
	Requests, Errors int
	FirstErr         error
	Elapsed          time.Duration
	P50, P99         time.Duration // of the requests that succeeded
}

// PerSecond is the rate of successful requests.
func (r Result) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests-r.Errors) / r.Elapsed.Seconds()
}

func (r Result) String() string {
	return fmt.Sprintf("%d requests in %v: %.0f per second, p50 %v, p99 %v, %d errors",
		r.Requests, r.Elapsed.Round(time.Millisecond), r.PerSecond(), r.P50, r.P99, r.Errors)
}

// Run GETs url from workers goroutines for d, and wants status 200 and size bytes each time.
func Run(url string, size int64, workers int, d time.Duration) Result {
	var mu sync.Mutex
	var res Result
	var lat []time.Duration
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 30 * time.Second}
			defer client.CloseIdleConnections()
			for time.Since(start) < d {
				t0 := time.Now()
				err := get(client, url, size)
				el := time.Since(t0)
				mu.Lock()
				res.Requests++
				if err != nil {
					res.Errors++
					if res.FirstErr == nil {
						res.FirstErr = err
					}
				} else {
					lat = append(lat, el)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	slices.Sort(lat)
	if len(lat) > 0 {
		res.P50, res.P99 = lat[len(lat)/2], lat[len(lat)*99/100]
	}
	return res
}

func get(client *http.Client, url string, size int64) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || n != size {
		return fmt.Errorf("status %d, %d bytes, want 200 and %d", resp.StatusCode, n, size)
	}
	return nil
}
