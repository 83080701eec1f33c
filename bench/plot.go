package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/stashgo/stash/internal/measure"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Plot files, written into the -out directory.
const (
	plotLateness = "lateness_cdf.png" // one CDF panel per duration
	plotNsVsLive = "nsop_vs_live.png" // ns/op against live timers
)

// writePlots writes every plot the results have data for into dir and
// returns the paths written.
func writePlots(dir string, res *results) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	if len(res.latenessOrder) > 0 {
		p := filepath.Join(dir, plotLateness)
		if err := latenessCDF(p, res); err != nil {
			return written, fmt.Errorf("%s: %w", p, err)
		}
		written = append(written, p)
	}
	if len(res.nsVsLive) > 0 {
		p := filepath.Join(dir, plotNsVsLive)
		if err := nsVsLive(p, res); err != nil {
			return written, fmt.Errorf("%s: %w", p, err)
		}
		written = append(written, p)
	}
	return written, nil
}

// minLateUs keeps a lateness of 0 (or a clock read that came out ahead)
// drawable on the log axis.
const minLateUs = 0.1

// latenessCDF draws, per duration, the fraction of samples that were at most
// x µs late, one line per implementation, side by side in one PNG.
func latenessCDF(file string, res *results) error {
	var row []*plot.Plot
	for _, d := range res.latenessOrder {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("NewTimer(%v): lateness CDF", d)
		p.X.Label.Text = "lateness (µs, log)"
		p.Y.Label.Text = "fraction of samples"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Min, p.Y.Max = 0, 1
		p.Legend.Top = false
		p.Legend.Left = false
		var args []any
		for _, name := range []string{implTime.name, implStash.name} {
			s := slices.Clone(res.lateness[d][name])
			if len(s) == 0 {
				continue
			}
			slices.Sort(s)
			xys := make(plotter.XYs, len(s))
			for i, v := range s {
				xys[i].X = max(float64(v)/float64(time.Microsecond), minLateUs)
				xys[i].Y = float64(i+1) / float64(len(s))
			}
			args = append(args, name, xys)
		}
		if len(args) > 0 {
			if err := plotutil.AddLines(p, args...); err != nil {
				return err
			}
		}
		row = append(row, p)
	}
	const panelW, panelH = 4 * vg.Inch, 3.5 * vg.Inch
	img := vgimg.New(panelW*vg.Length(len(row)), panelH)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(row), PadX: vg.Millimeter, PadY: vg.Millimeter,
		PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter}
	canvases := plot.Align([][]*plot.Plot{row}, tiles, dc)
	for i, p := range row {
		p.Draw(canvases[0][i])
	}
	return savePNG(file, img)
}

// nsVsLive draws ns/op against the number of live timers (log x; 0 is drawn
// at 1 and labelled 0), one line per workload and implementation.
func nsVsLive(file string, res *results) error {
	p := plot.New()
	p.Title.Text = "ns/op against live timers"
	p.X.Label.Text = "live timers (log)"
	p.Y.Label.Text = "ns/op"
	p.X.Scale = plot.LogScale{}
	p.Y.Min = 0
	p.Legend.Top = true
	p.Legend.Left = true

	var ticks []plot.Tick
	seen := map[int]bool{}
	var args []any
	names := make([]string, 0, len(res.nsVsLive))
	for w := range res.nsVsLive {
		names = append(names, w)
	}
	slices.Sort(names)
	for _, w := range names {
		for _, impl := range []string{implTime.name, implStash.name} {
			var xys plotter.XYs
			for _, pt := range res.nsVsLive[w][impl] {
				if math.IsNaN(pt.ns) {
					continue
				}
				xys = append(xys, plotter.XY{X: float64(max(pt.live, 1)), Y: pt.ns})
				if !seen[pt.live] {
					seen[pt.live] = true
					ticks = append(ticks, plot.Tick{Value: float64(max(pt.live, 1)), Label: measure.Count(pt.live)})
				}
			}
			if len(xys) > 0 {
				args = append(args, w+" "+impl, xys)
			}
		}
	}
	if len(args) > 0 {
		if err := plotutil.AddLinePoints(p, args...); err != nil {
			return err
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	if len(ticks) == 1 { // a log axis needs a range
		p.X.Min, p.X.Max = ticks[0].Value/10, ticks[0].Value*10
	}
	img := vgimg.New(6*vg.Inch, 4*vg.Inch)
	p.Draw(draw.New(img))
	return savePNG(file, img)
}

func savePNG(file string, img *vgimg.Canvas) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
