package httpload

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/short" {
			w.Write([]byte("x"))
			return
		}
		w.Write([]byte("hello"))
	}))
	defer srv.Close()
	r := Run(srv.URL+"/", 5, 2, 100*time.Millisecond)
	if r.Requests == 0 || r.Errors != 0 || r.P50 <= 0 || r.P99 < r.P50 || r.PerSecond() <= 0 {
		t.Fatalf("%v (first error %v)", r, r.FirstErr)
	}
	bad := Run(srv.URL+"/short", 5, 1, 20*time.Millisecond)
	if bad.Errors == 0 || bad.Errors != bad.Requests || !strings.Contains(bad.FirstErr.Error(), "1 bytes") {
		t.Fatalf("short bodies: %v, first error %v", bad, bad.FirstErr)
	}
}

func TestAwaitLine(t *testing.T) {
	var log strings.Builder
	if !<-AwaitLine(strings.NewReader("boot\nnethttp: serving on x\nmore\n"), "serving on", &log) {
		t.Fatal("the line was not seen")
	}
	if <-AwaitLine(strings.NewReader("boot\nexit\n"), "serving on", nil) {
		t.Fatal("a line that never came was seen")
	}
}
