// Package fakebank is a small stand-in for a bank's scoring engine that speaks a line protocol
// over TCP, not HTTP: the kind of system for which a bank writes a Go adapter instead of using
// tiyin's HTTP gateway protocol. It keeps its decisions in memory and can be told to misbehave,
// so that the adapter's contract suite can run against it.
//
// The protocol, one request line and one answer line per connection, fields separated by one
// space and each field URL-query-escaped:
//
//	PRE <key> <pinfl>                              → ACK | REFUSED <reason>
//	PRERESULT <key> <pinfl>                        → PENDING | APPROVED <limit> <percent×100> <months> | DECLINED <reason> | UNKNOWN
//	POST <key> <pinfl> <amount> <percent×100> <months> → APPROVED | APPROVED CALL <phone> | DECLINED <reason>
//	any                                            → ERR BUSY (not processed) | ERR <text> (outcome unknown)
//
// Decisions, by the PINFL's last two digits: 99 is declined at pre-scoring, 98 at
// post-scoring, 97 needs a phone call; everything else is approved with a limit of
// 7 770 000 000 tiyin at 31.5 % for up to 18 months. A pre-scoring answer is PENDING the first
// time it is asked for.
package fakebank

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
)

// Fault is how the engine misbehaves.
type Fault int

// The faults.
const (
	Healthy Fault = iota
	Busy          // answers every request ERR BUSY
	Hang          // reads every request and never answers
)

// Offer is what the engine approves at pre-scoring.
const (
	Limit    = 7_770_000_000
	Percent  = 3150
	Months   = 18
	CallDesk = "998712000000"
)

// Bank is a running engine.
type Bank struct {
	ln    net.Listener
	fault Fault
	mu    sync.Mutex
	pre   map[string]*preScore // by key
	post  map[string]string    // by key: the answer given
	wg    sync.WaitGroup
	done  chan struct{}
}

type preScore struct {
	pinfl string
	asked int
}

// Start listens on a free loopback port.
func Start(fault Fault) (*Bank, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &Bank{ln: ln, fault: fault, pre: map[string]*preScore{}, post: map[string]string{}, done: make(chan struct{})}
	b.wg.Go(b.serve)
	return b, nil
}

// Addr is where the engine listens.
func (b *Bank) Addr() string { return b.ln.Addr().String() }

// Close stops the engine and drops its connections.
func (b *Bank) Close() {
	close(b.done)
	_ = b.ln.Close()
	b.wg.Wait()
}

func (b *Bank) serve() {
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.wg.Go(func() { b.handle(c) })
	}
}

func (b *Bank) handle(c net.Conn) {
	defer func() { _ = c.Close() }()
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return
	}
	switch b.fault {
	case Busy:
		_, _ = c.Write([]byte("ERR BUSY\n"))
		return
	case Hang:
		<-b.done
		return
	}
	fields := strings.Fields(line)
	for i, f := range fields {
		fields[i], _ = url.QueryUnescape(f)
	}
	_, _ = c.Write([]byte(b.answer(fields) + "\n"))
}

func (b *Bank) answer(f []string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case len(f) == 3 && f[0] == "PRE":
		if _, ok := b.pre[f[1]]; !ok {
			b.pre[f[1]] = &preScore{pinfl: f[2]}
		}
		return "ACK"
	case len(f) == 3 && f[0] == "PRERESULT":
		p, ok := b.pre[f[1]]
		if !ok {
			return "UNKNOWN"
		}
		if p.asked++; p.asked == 1 {
			return "PENDING"
		}
		if strings.HasSuffix(p.pinfl, "99") {
			return "DECLINED " + url.QueryEscape("debt burden above the bank's limit")
		}
		return fmt.Sprintf("APPROVED %d %d %d", Limit, Percent, Months)
	case len(f) == 6 && f[0] == "POST":
		if a, ok := b.post[f[1]]; ok {
			return a
		}
		a := "APPROVED"
		switch {
		case strings.HasSuffix(f[2], "98"):
			a = "DECLINED " + url.QueryEscape("income not confirmed")
		case strings.HasSuffix(f[2], "97"):
			a = "APPROVED CALL " + CallDesk
		}
		b.post[f[1]] = a
		return a
	}
	return "ERR " + url.QueryEscape("bad request")
}
