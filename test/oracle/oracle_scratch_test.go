package oracle_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestScratchClassify(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2026))
	hs := make([]history, 2000)
	for n := range hs {
		hs[n] = randomHistory(rng, 5)
	}
	walks := make([]walk, len(hs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for n := range next {
				walks[n] = compare(hs[n])
			}
		})
	}
	for n := range hs {
		next <- n
	}
	close(next)
	wg.Wait()
	dayRe := regexp.MustCompile(`^day (\d+): (.*)$`)
	cats := map[string][]int{}
	for n, w := range walks {
		if w.err == nil {
			continue
		}
		m := dayRe.FindStringSubmatch(w.err.Error())
		day, _ := strconv.Atoi(m[1])
		var kinds []string
		last := "none"
		for _, p := range hs[n].Payments {
			if p.Day < day {
				k := kindNames[p.Kind]
				if p.Kind < kinds0 {
					k += map[bool]string{true: "/E", false: "/T"}[p.Early]
				}
				last = k
			}
			if p.Day == day {
				k := kindNames[p.Kind]
				if p.Kind < kinds0 {
					k += map[bool]string{true: "/E", false: "/T"}[p.Early]
				}
				kinds = append(kinds, k)
			}
		}
		what := "schedule"
		if strings.Contains(m[2], "paying") {
			what = "split"
		} else if strings.Contains(m[2], "items, the oracle has") {
			what = "length"
		} else if strings.Contains(m[2], "owes") {
			what = "position"
		}
		svc := "svc0"
		if hs[n].Terms.Service > 0 {
			svc = "svc"
		}
		diff := "diff"
		if what == "split" {
			nums := regexp.MustCompile(`-?\d+`).FindAllString(m[2][strings.Index(m[2], "applies"):], -1)
			a, _ := strconv.Atoi(nums[0])
			b, _ := strconv.Atoi(nums[3])
			if a-b == 1 || b-a == 1 {
				diff = "1tiyin"
			}
		}
		key := fmt.Sprintf("%-9s today=%v prev=%s %s %s", what, kinds, last, svc, diff)
		cats[key] = append(cats[key], n)
	}
	var keys []string
	for k := range cats {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(cats[keys[i]]) > len(cats[keys[j]]) })
	for _, k := range keys {
		fmt.Printf("%4d %s e.g. %v\n", len(cats[k]), k, cats[k][:min(4, len(cats[k]))])
	}
}

const kinds0 = kinds
