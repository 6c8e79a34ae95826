package codemode

// ContentItem is one piece of a cell's output: InputText, InputImage or InputAudio.
type ContentItem interface {
	isContentItem()
}

// InputText is text output.
type InputText struct {
	Text string
}

// ImageDetail is the resolution hint of an image.
type ImageDetail string

// The image details Codex accepts.
const (
	ImageDetailAuto     ImageDetail = "auto"
	ImageDetailLow      ImageDetail = "low"
	ImageDetailHigh     ImageDetail = "high"
	ImageDetailOriginal ImageDetail = "original"
)

// DefaultImageDetail is the detail of an image whose script gave none.
const DefaultImageDetail = ImageDetailHigh

// Valid reports whether d is one of the four known details.
func (d ImageDetail) Valid() bool {
	switch d {
	case ImageDetailAuto, ImageDetailLow, ImageDetailHigh, ImageDetailOriginal:
		return true
	}
	return false
}

// InputImage is an image output, always a data: URL when produced by a cell.
type InputImage struct {
	ImageURL string
	// Detail is empty when absent.
	Detail ImageDetail
}

// InputAudio is an audio output, a data: URL.
type InputAudio struct {
	AudioURL string
}

func (InputText) isContentItem()  {}
func (InputImage) isContentItem() {}
func (InputAudio) isContentItem() {}
