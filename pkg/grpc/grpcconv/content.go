package grpcconv

import (
	"errors"
	"fmt"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// ContentItemToProto converts one output item. An image detail outside the four known ones
// cannot be put on the wire.
func ContentItemToProto(item codemode.ContentItem) (*pb.ContentItem, error) {
	switch v := item.(type) {
	case codemode.InputText:
		return &pb.ContentItem{Item: &pb.ContentItem_Text{Text: &pb.TextContent{Text: v.Text}}}, nil
	case codemode.InputImage:
		image := &pb.ImageContent{ImageUrl: v.ImageURL}
		if v.Detail != "" {
			d, ok := imageDetailToProto[v.Detail]
			if !ok {
				return nil, fmt.Errorf("code-mode image has invalid detail %q", string(v.Detail))
			}
			image.Detail = &d
		}
		return &pb.ContentItem{Item: &pb.ContentItem_Image{Image: image}}, nil
	case codemode.InputAudio:
		return &pb.ContentItem{Item: &pb.ContentItem_Audio{Audio: &pb.AudioContent{AudioUrl: v.AudioURL}}}, nil
	default:
		return nil, fmt.Errorf("code-mode content item of type %T cannot be encoded", item)
	}
}

// ContentItemFromProto converts an output item the host returned, refusing an empty one and an
// unspecified or unknown image detail.
func ContentItemFromProto(item *pb.ContentItem) (codemode.ContentItem, error) {
	switch v := item.GetItem().(type) {
	case *pb.ContentItem_Text:
		return codemode.InputText{Text: v.Text.GetText()}, nil
	case *pb.ContentItem_Image:
		image := codemode.InputImage{ImageURL: v.Image.GetImageUrl()}
		if v.Image.Detail != nil {
			d, ok := imageDetails[*v.Image.Detail]
			if !ok {
				return nil, fmt.Errorf("code-mode image has invalid detail value %d", int32(*v.Image.Detail))
			}
			image.Detail = d
		}
		return image, nil
	case *pb.ContentItem_Audio:
		return codemode.InputAudio{AudioURL: v.Audio.GetAudioUrl()}, nil
	default:
		return nil, errors.New("code-mode execution returned an empty content item")
	}
}

// imageDetails maps the wire's image details; IMAGE_DETAIL_UNSPECIFIED is deliberately absent.
var imageDetails = map[pb.ImageDetail]codemode.ImageDetail{
	pb.ImageDetail_IMAGE_DETAIL_AUTO:     codemode.ImageDetailAuto,
	pb.ImageDetail_IMAGE_DETAIL_LOW:      codemode.ImageDetailLow,
	pb.ImageDetail_IMAGE_DETAIL_HIGH:     codemode.ImageDetailHigh,
	pb.ImageDetail_IMAGE_DETAIL_ORIGINAL: codemode.ImageDetailOriginal,
}

// imageDetailToProto is imageDetails' inverse.
var imageDetailToProto = map[codemode.ImageDetail]pb.ImageDetail{
	codemode.ImageDetailAuto:     pb.ImageDetail_IMAGE_DETAIL_AUTO,
	codemode.ImageDetailLow:      pb.ImageDetail_IMAGE_DETAIL_LOW,
	codemode.ImageDetailHigh:     pb.ImageDetail_IMAGE_DETAIL_HIGH,
	codemode.ImageDetailOriginal: pb.ImageDetail_IMAGE_DETAIL_ORIGINAL,
}
